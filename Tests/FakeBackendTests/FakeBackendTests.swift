import ConnectionParsing
import ConversationParsing
import EventParsing
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import ParsingCore
import TestSupport
import Testing
import Transport
import UserParsing

@Suite("FakeBackend", .tags(.transport), .courier(timeBudget: .seconds(5)))
struct FakeBackendTests {
  @Suite("Users and search")
  struct Users {
    @Test("GET /self answers the self user in the shape UserPayload parses")
    func getSelf() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Ada", handle: "ada")

      // when
      let (status, body) = try await fake.call(.get, "/self")

      // then
      #expect(status == 200)
      let user = try UserPayload.parse(try #require(body))
      #expect(user == UserPayload(id: me, name: "Ada", handle: "ada", accentID: 0))
    }

    @Test("PUT /self changes the profile and emits a user.update event")
    func putSelf() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()

      // when
      let (status, _) = try await fake.call(.put, "/self", json: ["name": "Ada", "accent_id": 3])

      // then
      #expect(status == 200)
      #expect(fake.user(me)?.name == "Ada")
      #expect(
        fake.notifications.last?.events == [
          .userUpdate(UserUpdatePayload(id: me, name: "Ada", accentID: 3))
        ])
    }

    @Test(
      "PUT /self refuses a bad body with 400 naming the field",
      arguments: zip(
        [["name": "  "], ["accent_id": "blue"], "just a string"] as [JSONValue],
        ["'name'", "'accent_id'", "object"]))
    func putSelfBadBody(_ body: JSONValue, _ field: String) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()

      // when
      let (status, response) = try await fake.call(.put, "/self", json: body)

      // then
      #expect(status == 400)
      #expect(response?["message"]?.stringValue?.contains(field) == true)
    }

    @Test("GET /users?ids= answers the users it knows and leaves out the others")
    func getUsers() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let unknown = UUID()

      // when
      let (status, body) = try await fake.call(
        .get, "/users", query: [QueryItem("ids", "\(ann.text),\(unknown.text)")])

      // then
      #expect(status == 200)
      #expect(body?.arrayValue?.map { $0["name"] } == ["Ann"])
    }

    @Test("GET /users/{id} answers the user, or 404 for an unknown id", arguments: [true, false])
    func getUser(known: Bool) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")

      // when
      let (status, body) = try await fake.call(.get, "/users/\((known ? ann : UUID()).text)")

      // then
      #expect(status == (known ? 200 : 404))
      #expect(body?[known ? "name" : "label"] == (known ? "Ann" : "not-found"))
    }

    @Test(
      "Search matches names and handles case-insensitively, with the query decoded exactly",
      arguments: zip(
        ["ali", "ALI", "$&?@", "zzz", "bo"],
        [["Alice", "Alicia"], ["Alice", "Alicia"], ["$&?@ Bot"], [], ["$&?@ Bot", "Bob"]]))
    func search(_ query: String, _ expected: [String]) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser(name: "Alister")
      for name in ["Alice", "$&?@ Bot", "Alicia", "Bob"] { fake.insertUser(name: name) }

      // when
      let (status, body) = try await fake.call(
        .get, "/search/contacts", query: [QueryItem("q", query), QueryItem("size", "10")])

      // then
      #expect(status == 200)
      #expect(body?["documents"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == expected)
      #expect(fake.journal.last?.request.queryValue("q") == query)
    }
  }

  @Suite("Connections")
  struct Connections {
    @Test(
      "POST /connections makes a sent request, a pending one for the other user and a conversation")
    func postConnection() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")

      // when
      let (status, body) = try await fake.call(
        .post, "/connections", json: ["user": .string(ann.text), "name": "Ann", "message": "Hi"])

      // then
      #expect(status == 201)
      let connection = try ConnectionPayload.parse(try #require(body))
      #expect(connection.status == .sent)
      #expect(fake.connection(from: ann, to: me)?.status == .pending)
      #expect(fake.conversation(connection.conversation)?.type == .connection)
      #expect(
        fake.notifications.flatMap(\.events).map(\.typeName) == [
          "conversation.create", "user.connection",
        ])
    }

    @Test("With contacts accepting requests, a request is answered sent and then accepted")
    func contactsAccept() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      fake.contactsAcceptRequests = true

      // when
      let (status, body) = try await fake.call(
        .post, "/connections", json: ["user": .string(ann.text), "name": "Ann"])

      // then
      #expect(status == 201)
      #expect(try ConnectionPayload.parse(try #require(body)).status == .sent)
      #expect(fake.connection(from: me, to: ann)?.status == .accepted)
      #expect(
        fake.notifications.flatMap(\.events).map(\.typeName).contains("conversation.member-join"))
    }

    @Test("POST /connections again answers 200 with the existing request and creates nothing")
    func postConnectionTwice() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let first = try await fake.call(
        .post, "/connections", json: ["user": .string(ann.text), "name": "Ann"])

      // when
      let second = try await fake.call(
        .post, "/connections", json: ["user": .string(ann.text), "name": "Ann"])

      // then
      #expect(second.status == 200)
      #expect(second.body == first.body)
      #expect(fake.notifications.count == 2)
    }

    @Test(
      "POST /connections refuses self (400) and an unknown user (404)", arguments: [true, false])
    func postConnectionRefused(toSelf: Bool) async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()

      // when
      let (status, _) = try await fake.call(
        .post, "/connections",
        json: ["user": .string((toSelf ? me : UUID(404)).text), "name": "Someone"])

      // then
      #expect(status == (toSelf ? 400 : 404))
    }

    @Test(
      "PUT /connections/{user} makes each change the self user's side may make",
      arguments: [
        Step(.sent, .cancelled, 200), Step(.sent, .sent, 204),
        Step(.pending, .accepted, 200), Step(.pending, .ignored, 200),
        Step(.pending, .blocked, 200), Step(.accepted, .blocked, 200),
        Step(.blocked, .accepted, 200), Step(.ignored, .accepted, 200),
      ])
    func allowedTransition(_ step: Step) async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      try await step.reach(step.from, between: me, and: ann, on: fake)

      // when
      let (status, _) = try await fake.call(
        .put, "/connections/\(ann.text)", json: ["status": .string(step.to.rawValue)])

      // then
      #expect(status == step.status)
      #expect(fake.connection(from: me, to: ann)?.status == step.to)
    }

    @Test(
      "PUT /connections/{user} refuses the other changes with 403 bad-conn-update",
      arguments: [
        Step(.sent, .accepted, 403), Step(.pending, .sent, 403), Step(.cancelled, .sent, 403),
        Step(.accepted, .pending, 403),
      ])
    func refusedTransition(_ step: Step) async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      try await step.reach(step.from, between: me, and: ann, on: fake)

      // when
      let (status, body) = try await fake.call(
        .put, "/connections/\(ann.text)", json: ["status": .string(step.to.rawValue)])

      // then
      #expect(status == step.status)
      #expect(body?["label"] == "bad-conn-update")
      #expect(fake.connection(from: me, to: ann)?.status == step.from)
    }

    @Test(
      "Accepting a pending request accepts the other side and makes the conversation one-to-one")
    func acceptPending() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let conversation = try #require(fake.requestConnectionRemotely(from: ann))

      // when
      _ = try await fake.call(.put, "/connections/\(ann.text)", json: ["status": "accepted"])

      // then
      #expect(fake.connection(from: ann, to: me)?.status == .accepted)
      #expect(fake.conversation(conversation)?.type == .oneToOne)
      #expect(fake.conversation(conversation)?.otherMembers == [ann])
    }

    @Test(
      "Connecting remotely accepts both sides, with the news of the request and the acceptance")
    func connectRemotely() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")

      // when
      let conversation = try #require(fake.connectRemotely(with: ann))

      // then
      #expect(fake.connection(from: me, to: ann)?.status == .accepted)
      #expect(fake.connection(from: ann, to: me)?.status == .accepted)
      #expect(fake.conversation(conversation)?.type == .oneToOne)
      #expect(fake.notifications.flatMap(\.events).map(\.typeName).contains("user.connection"))
    }

    @Test("Connecting remotely with an unknown user changes nothing and returns nil")
    func connectRemotelyUnknown() async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let stranger = UUID()

      // when
      let conversation = fake.connectRemotely(with: stranger)

      // then
      #expect(conversation == nil)
      #expect(fake.connection(from: me, to: stranger) == nil)
    }

    @Test(
      "A contact withdrawing their request cancels both sides, pending or ignored here, with news",
      arguments: [ConnectionStatus.pending, .ignored])
    func remoteCancellation(here: ConnectionStatus) async throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      fake.requestConnectionRemotely(from: ann)
      if here == .ignored {
        _ = try await fake.call(.put, "/connections/\(ann.text)", json: ["status": "ignored"])
      }
      let before = fake.notifications.count

      // when
      let cancelled = fake.cancelRequestRemotely(by: ann)

      // then
      #expect(cancelled)
      #expect(fake.connection(from: me, to: ann)?.status == .cancelled)
      #expect(fake.connection(from: ann, to: me)?.status == .cancelled)
      let events = fake.notifications.dropFirst(before).flatMap(\.events)
      #expect(events.map(\.typeName) == ["user.connection"])
    }

    @Test("A contact cannot withdraw a request they did not send, or one already answered")
    func remoteCancellationWithoutRequest() async throws {
      // given: Ann sent nothing; Bob's request was accepted here
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let bob = fake.insertUser(name: "Bob")
      fake.requestConnectionRemotely(from: bob)
      _ = try await fake.call(.put, "/connections/\(bob.text)", json: ["status": "accepted"])
      let before = fake.notifications.count

      // when
      let withdrawn = [ann, bob].map { fake.cancelRequestRemotely(by: $0) }

      // then
      #expect(withdrawn == [false, false])
      #expect(fake.connection(from: me, to: bob)?.status == .accepted)
      #expect(fake.notifications.count == before)
    }

    @Test(
      "GET /connections pages in creation order with has_more",
      arguments: zip([1, 2, 5, 10], [[1, 1, 1, 1, 1], [2, 2, 1], [5], [5]]))
    func paging(size: Int, pages expected: [Int]) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      for index in 0..<5 {
        let user = fake.insertUser(name: "User \(index)")
        _ = try await fake.call(
          .post, "/connections", json: ["user": .string(user.text), "name": "Ann"])
      }

      // when
      var pages: [Int] = []
      var start: String?
      while true {
        let query = [QueryItem("size", "\(size)")] + (start.map { [QueryItem("start", $0)] } ?? [])
        let (_, body) = try await fake.call(.get, "/connections", query: query)
        let page = try Page<ConnectionPayload>.parse(try #require(body), listKey: "connections")
        pages.append(page.elements.count)
        start = page.elements.last?.to.text
        if !page.hasMore { break }
      }

      // then
      #expect(pages == expected)
    }

    @Test(
      "Paging refuses a bad size (400) and an unknown start (404)",
      arguments: zip(
        [
          [QueryItem("size", "0")], [QueryItem("size", "many")],
          [QueryItem("start", UUID().uuidString)],
        ],
        [400, 400, 404]))
    func badPaging(_ query: [QueryItem], _ status: Int) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()

      // when
      let response = try await fake.call(.get, "/connections", query: query)

      // then
      #expect(response.status == status)
    }
  }
}

/// One row of the connection transition table: the status before, the status asked for, the
/// answer expected.
struct Step: Sendable, CustomTestStringConvertible {
  let from: ConnectionStatus
  let to: ConnectionStatus
  let status: Int

  init(_ from: ConnectionStatus, _ to: ConnectionStatus, _ status: Int) {
    self.from = from
    self.to = to
    self.status = status
  }

  var testDescription: String { "\(from.rawValue) → \(to.rawValue): \(status)" }

  /// Brings the connection between `me` and `other` to `status` through the API and setup calls.
  func reach(_ status: ConnectionStatus, between me: UUID, and other: UUID, on fake: FakeBackend)
    async throws
  {
    func put(_ status: String) async throws {
      _ = try await fake.call(.put, "/connections/\(other.text)", json: ["status": .string(status)])
    }
    switch status {
    case .sent:
      _ = try await fake.call(
        .post, "/connections", json: ["user": .string(other.text), "name": "Ann"])
    case .cancelled:
      try await reach(.sent, between: me, and: other, on: fake)
      try await put("cancelled")
    case .pending:
      fake.requestConnectionRemotely(from: other)
    case .accepted, .ignored:
      fake.requestConnectionRemotely(from: other)
      try await put(status.rawValue)
    case .blocked:
      try await reach(.accepted, between: me, and: other, on: fake)
      try await put("blocked")
    case .missingLegalholdConsent:
      break
    }
  }
}

extension EventPayload {
  /// The event's `type` as the backend names it.
  var typeName: String { jsonValue["type"]?.stringValue ?? "?" }
}
