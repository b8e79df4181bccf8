import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import SyncStrategies
import TestSupport
import Testing
import Transport

@Suite("Strategies", .tags(.sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct StrategyTests {
  @Test(
    "SelfUserStrategy sends exactly the changed profile keys",
    arguments: zip(
      [[User.Key.name], [.accentID], [.name, .accentID, .handle]],
      [["name": "Ada"], ["accent_id": 7], ["name": "Ada", "accent_id": 7, "handle": "ada"]]
        as [JSONValue]))
  func selfUser(_ keys: [User.Key], _ body: JSONValue) async throws {
    // given
    let harness = Harness()

    // when
    try await harness.save { context in
      try context.update(User.self, id: harness.me.id) { user in
        if keys.contains(.name) { user.name = "Ada" }
        if keys.contains(.accentID) { user.accentID = 7 }
        if keys.contains(.handle) { user.handle = "ada" }
      }
    }
    let request = await harness.next()

    // then
    #expect(request?.description == "PUT /self")
    #expect(request?.json == body)
  }

  @Test("ConnectionStrategy posts a new request with the user, their name and the note")
  func connectionInsert() async throws {
    // given
    let harness = Harness()
    let ann = harness.make.user(name: "Ann")
    try await harness.insert([
      ann, harness.make.connection(from: harness.me, to: ann, message: "Hi"),
    ])

    // when
    let request = await harness.next()

    // then
    #expect(request?.description == "POST /connections")
    #expect(
      request?.json == [
        "user": .string(ann.id.uuidString.lowercased()), "name": "Ann", "message": "Hi",
      ])
  }

  @Test(
    "ConnectionStrategy puts a new status",
    arguments: [Connection.Status.accepted, .ignored, .blocked])
  func connectionStatus(_ status: Connection.Status) async throws {
    // given
    let harness = Harness()
    let ann = harness.make.user(name: "Ann")
    try await harness.seedRemote([
      ann, harness.make.connection(from: harness.me, to: ann, status: .pending),
    ])

    // when
    try await harness.save { try $0.update(Connection.self, id: ann.id) { $0.status = status } }
    let requests = await harness.drain()

    // then
    #expect(requests.map(\.description) == ["PUT /connections/\(ann.id.uuidString.lowercased())"])
    #expect(requests.first?.json == ["status": .string(status.rawValue)])
  }

  @Test("Only the self user's side of a connection is pushed")
  func othersConnections() async throws {
    // given
    let make = ModelFactory()
    let ann = make.user(name: "Ann")
    let bob = make.user(name: "Bob")
    let harness = Harness([ann, bob], make: make)

    // when
    try await harness.insert([make.connection(from: ann, to: bob)])
    let request = await harness.next()

    // then
    #expect(request == nil)
  }

  @Test("ConversationStrategy creates a group with the client's id and the other participants")
  func groupInsert() async throws {
    // given
    let harness = Harness()
    let ann = harness.make.user(name: "Ann")
    let group = harness.make.conversation(name: "Team", creator: harness.me, participants: [ann])
    try await harness.insert([ann, group])

    // when
    let request = await harness.next()

    // then
    #expect(request?.description == "POST /conversations")
    #expect(
      request?.json == [
        "id": .string(group.id.uuidString.lowercased()), "name": "Team",
        "users": [.string(ann.id.uuidString.lowercased())],
      ])
  }

  @Test(
    "ConversationStrategy adds and removes participants against the last synchronised value",
    arguments: zip(
      [["add"], ["remove"], ["add", "remove"]],
      [["POST"], ["DELETE"], ["POST", "DELETE"]]))
  func participants(_ changes: [String], _ methods: [String]) async throws {
    // given
    let harness = Harness()
    let ann = harness.make.user(name: "Ann")
    let bob = harness.make.user(name: "Bob")
    let group = harness.make.conversation(name: "G", creator: harness.me, participants: [ann])
    try await harness.seedRemote([ann, bob, group])

    // when
    try await harness.save { context in
      try context.update(Conversation.self, id: group.id) { conversation in
        if changes.contains("add") { conversation.participantIDs.insert(bob.id) }
        if changes.contains("remove") { conversation.participantIDs.remove(ann.id) }
      }
    }
    var sent: [UpstreamRequest] = []
    while let request = await harness.next() {
      sent.append(request)
      await harness.complete(request, .ok())
    }

    // then
    #expect(sent.map { $0.request.method.rawValue } == methods)
    #expect(sent.allSatisfy { $0.request.path.description.hasSuffix("/members") })
    let users = sent.map { $0.json?["users"] }
    if changes == ["add", "remove"] {
      #expect(
        users == [
          [.string(bob.id.uuidString.lowercased())], [.string(ann.id.uuidString.lowercased())],
        ])
    }
    #expect(await harness.localChanges(Conversation.self).isEmpty)
  }

  @Test("Connection and one-to-one conversations are the backend's to make, never pushed")
  func serverConversations() async throws {
    // given
    let harness = Harness()
    let ann = harness.make.user(name: "Ann")

    // when
    try await harness.insert([
      ann, harness.make.conversation(kind: .oneToOne, creator: harness.me, participants: [ann]),
    ])
    let request = await harness.next()

    // then
    #expect(request == nil)
  }

  @Test("MessageStrategy posts the nonce and the text, and a success marks the message sent")
  func messageSend() async throws {
    // given
    let make = ModelFactory()
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let harness = Harness([group], make: make)
    let message = make.message(in: group, from: harness.me, text: "Hello")
    try await harness.insert([message])
    let request = try #require(await harness.next())

    // when
    await harness.complete(
      request,
      .ok(
        [
          "nonce": .string(message.nonce.uuidString.lowercased()),
          "conversation": .string(group.id.uuidString.lowercased()),
          "from": .string(harness.me.id.uuidString.lowercased()), "text": "Hello",
          "time": "2027-01-15T08:00:00.000Z",
        ], status: 201))

    // then
    #expect(
      request.json == ["nonce": .string(message.nonce.uuidString.lowercased()), "text": "Hello"])
    let sent = try #require(harness.ui.object(Message.self, id: message.id))
    #expect(sent.deliveryState == .sent)
    #expect(sent.serverTime != nil)
  }

  @Test("Messages go in the order they were written, each waiting for the one before")
  func messageOrder() async throws {
    // given
    let make = ModelFactory()
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let harness = Harness([group], make: make)
    let messages = ["one", "two", "three"].map {
      make.message(in: group, from: harness.me, text: $0)
    }
    try await harness.insert(messages.reversed())

    // when
    var texts: [String] = []
    while let request = await harness.next() {
      texts.append(request.json?["text"]?.stringValue ?? "?")
      #expect(await harness.next() == nil)
      await harness.complete(request, .ok(status: 201))
    }

    // then
    #expect(texts == ["one", "two", "three"])
  }

  @Test("A message refused for good is marked failed")
  func messageFailed() async throws {
    // given
    let make = ModelFactory()
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let harness = Harness([group], make: make)
    let message = make.message(in: group, from: harness.me)
    try await harness.insert([message])
    let request = try #require(await harness.next())

    // when
    await harness.complete(request, .permanent(nil, "status 403"))

    // then
    #expect(harness.ui.object(Message.self, id: message.id)?.deliveryState == .failed)
  }
}
