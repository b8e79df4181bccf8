import ConnectionParsing
import ConversationParsing
import CourierAPI
import Foundation
import JSON
import Models
import ModelsTestSupport
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

/// Every non-empty combination of `keys`.
func combinations<Key: Hashable>(of keys: [Key]) -> [[Key]] {
  (1..<(1 << keys.count)).map { mask in
    keys.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
  }
}

@Suite("Strategies", .tags(.sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct StrategyTests {
  /// Sends every request the tracker hands out to the fake, answering each before the next, and
  /// returns the keys each carried.
  static func pushAll(_ harness: TrackerHarness) async -> [Set<String>] {
    var carried: [Set<String>] = []
    var rounds = 0
    while let request = await harness.next(), rounds < 20 {
      rounds += 1
      carried.append(Set(request.item.keys.names))
      await harness.complete(request, await harness.respond(to: request))
    }
    return carried
  }

  // MARK: - Every combination of keys changed at once

  @Test(
    "SelfUserStrategy pushes every combination of profile keys, nothing dropped",
    arguments: combinations(of: [User.Key.name, .accentID, .handle]))
  func selfUserCombinations(keys: [User.Key]) async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { context in
      try context.update(User.self, id: harness.me.id) { user in
        if keys.contains(.name) { user.name = "Ada" }
        if keys.contains(.accentID) { user.accentID = 7 }
        if keys.contains(.handle) { user.handle = "ada" }
      }
    }

    // when
    let carried = await Self.pushAll(harness)

    // then
    #expect(carried.reduce(Set<String>()) { $0.union($1) } == Set(keys.map(\.rawValue)))
    let server = try #require(harness.fake.user(harness.me.id))
    #expect(server.name == (keys.contains(.name) ? "Ada" : "Me"))
    #expect(server.accentID == (keys.contains(.accentID) ? 7 : 0))
    #expect(server.handle == (keys.contains(.handle) ? "ada" : nil))
    #expect(await harness.localChanges(User.self).isEmpty)
  }

  @Test("ConnectionStrategy pushes a change of status, its one pushable key")
  func connectionCombinations() async throws {
    // given
    let harness = TrackerHarness()
    let ann = try await seedRequest(from: "Ann", in: harness)
    try harness.save { try $0.update(Connection.self, id: ann) { $0.status = .accepted } }

    // when
    let carried = await Self.pushAll(harness)

    // then
    #expect(carried == [["status"]])
    #expect(harness.fake.connection(from: harness.me.id, to: ann)?.status == .accepted)
    #expect(await harness.localChanges(Connection.self).isEmpty)
  }

  @Test(
    "ConversationStrategy pushes every combination of name and participants, nothing dropped",
    arguments: combinations(of: [Conversation.Key.name, .participantIDs]))
  func conversationCombinations(keys: [Conversation.Key]) async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.fake.insertUser(name: "Ann")
    let bob = harness.fake.insertUser(name: "Bob")
    let id = harness.fake.createGroupRemotely(name: "Old", by: harness.me.id, members: [ann])
    try await harness.seedRemote([
      User(id: ann, name: "Ann"), User(id: bob, name: "Bob"),
      Conversation(
        id: id, kind: .group, name: "Old", creatorID: harness.me.id,
        participantIDs: [harness.me.id, ann], lastEventTime: harness.make.now),
    ])
    try harness.save { context in
      try context.update(Conversation.self, id: id) { group in
        if keys.contains(.name) { group.name = "New" }
        if keys.contains(.participantIDs) { group.participantIDs = [harness.me.id, bob] }
      }
    }

    // when
    let carried = await Self.pushAll(harness)

    // then
    #expect(carried.reduce(Set<String>()) { $0.union($1) } == Set(keys.map(\.rawValue)))
    let server = try #require(harness.fake.conversation(id))
    #expect(server.name == (keys.contains(.name) ? "New" : "Old"))
    #expect(Set(server.otherMembers) == (keys.contains(.participantIDs) ? [bob] : [ann]))
    #expect(await harness.localChanges(Conversation.self).isEmpty)
  }

  // MARK: - Each strategy's requests

  @Test("ConnectionStrategy posts a new request with the user, their name and the note")
  func connectionInsert() async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    try harness.insert([ann, harness.make.connection(from: harness.me, to: ann, message: "Hi")])

    // when
    let request = await harness.next()

    // then
    #expect(request?.description == "POST /connections")
    #expect(
      request?.json == ["user": .string(ann.id.lowercasedText), "name": "Ann", "message": "Hi"])
  }

  @Test("ConnectionStrategy sends a request cancelled before it went, then its cancellation")
  func connectionCancelledBeforeItWent() async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    _ = harness.fake.insertUser(id: ann.id, name: "Ann")
    try harness.insert([ann, harness.make.connection(from: harness.me, to: ann, message: "Hi")])
    try harness.save { try $0.update(Connection.self, id: ann.id) { $0.status = .cancelled } }

    // when
    let requests = await harness.answerAll()

    // then
    #expect(
      requests.map(\.description) == [
        "POST /connections", "PUT /connections/\(ann.id.lowercasedText)",
      ])
    #expect(harness.fake.connection(from: harness.me.id, to: ann.id)?.status == .cancelled)
    #expect(await harness.localChanges(Connection.self).isEmpty)
  }

  @Test("Only the self user's side of a connection is pushed")
  func othersConnections() async throws {
    // given
    let make = ModelFactory()
    let ann = make.user(name: "Ann")
    let bob = make.user(name: "Bob")
    let harness = TrackerHarness([ann, bob], make: make)

    // when
    try harness.insert([make.connection(from: ann, to: bob)])
    let request = await harness.next()

    // then
    #expect(request == nil)
  }

  @Test("ConversationStrategy creates a group with the client's id and the other participants")
  func groupInsert() async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    let group = harness.make.conversation(name: "Team", creator: harness.me, participants: [ann])
    try harness.insert([ann, group])

    // when
    let request = await harness.next()

    // then
    #expect(request?.description == "POST /conversations")
    #expect(
      request?.json == [
        "id": .string(group.id.lowercasedText), "name": "Team",
        "users": [.string(ann.id.lowercasedText)],
      ])
  }

  @Test(
    "Adding and removing participants in one save removes first, then adds, against the backend's list"
  )
  func participantsRemoveThenAdd() async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    let bob = harness.make.user(name: "Bob")
    let group = harness.make.conversation(name: "G", creator: harness.me, participants: [ann])
    try await harness.seedRemote([ann, bob, group])
    try harness.save { context in
      try context.update(Conversation.self, id: group.id) {
        $0.participantIDs.insert(bob.id)
        $0.participantIDs.remove(ann.id)
      }
    }

    // when
    var sent: [UpstreamRequest] = []
    while let request = await harness.next() {
      sent.append(request)
      await harness.complete(request, .success(.noContent))
    }

    // then
    #expect(sent.map(\.request.method) == [.delete, .post])
    #expect(
      sent.map { $0.json?["users"] } == [
        [.string(ann.id.lowercasedText)], [.string(bob.id.lowercasedText)],
      ])
    #expect(await harness.localChanges(Conversation.self).isEmpty)
  }

  @Test("Connection and one-to-one conversations are the backend's to make, never pushed")
  func serverConversations() async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")

    // when
    try harness.insert([
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
    let group = make.conversation(creator: make.selfUser())
    let harness = TrackerHarness([group], make: make)
    let message = make.message(in: group, from: harness.me, text: "Hello")
    try harness.insert([message])
    let request = try #require(await harness.next())
    let answer = MessagePayload(
      nonce: message.nonce, conversation: group.id, from: harness.me.id, text: "Hello",
      time: Date(timeIntervalSince1970: 1_800_000_500))

    // when
    await harness.complete(request, .success(.message(answer)))
    await expectSettled(harness.stack.tracker)

    // then
    #expect(request.json == ["nonce": .string(message.nonce.lowercasedText), "text": "Hello"])
    let sent = try #require(harness.ui.object(Message.self, id: message.id))
    #expect(sent.deliveryState == .sent)
    #expect(sent.serverTime == answer.time)
  }

  @Test("Messages go in the order they were written, each waiting for the one before")
  func messageOrder() async throws {
    // given
    let make = ModelFactory()
    let group = make.conversation(creator: make.selfUser())
    let harness = TrackerHarness([group], make: make)
    let messages = ["one", "two", "three"].map {
      make.message(in: group, from: harness.me, text: $0)
    }
    try harness.insert(messages.reversed())

    // when
    var texts: [String] = []
    var alone = true
    while let request = await harness.next() {
      texts.append(request.json?["text"]?.stringValue ?? "?")
      let another = await harness.next()
      alone = alone && another == nil
      await harness.complete(request, .success(.noContent))
    }

    // then
    #expect(texts == ["one", "two", "three"])
    #expect(alone)
  }

  @Test("A message refused for good is marked failed, and shown pending again when retried")
  func messageFailedThenRetried() async throws {
    // given
    let make = ModelFactory()
    let group = make.conversation(creator: make.selfUser())
    let harness = TrackerHarness([group], make: make)
    let message = make.message(in: group, from: harness.me)
    try harness.insert([message])
    let request = try #require(await harness.next())
    await harness.complete(
      request, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
    await expectSettled(harness.stack.tracker)
    let failedState = harness.ui.object(Message.self, id: message.id)?.deliveryState
    let upstream = harness.upstream

    // when
    try await harness.stack.sync.perform { context in
      upstream.retryFailedChange(of: message.reference, in: context)
      try context.save()
    }
    await expectSettled(harness.stack.tracker)

    // then
    #expect(failedState == .failed)
    #expect(harness.ui.object(Message.self, id: message.id)?.deliveryState == .pending)
  }
}
