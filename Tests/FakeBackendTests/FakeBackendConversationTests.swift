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

extension FakeBackendTests {
  @Suite("Conversations and messages")
  struct Conversations {
    /// A fake with a self user, two others, and a group of all three.
    static func group() async throws -> (FakeBackend, me: UUID, ann: UUID, bob: UUID, group: UUID) {
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let bob = fake.insertUser(name: "Bob")
      let (_, body) = try await fake.call(
        .post, "/conversations", json: ["name": "Team", "users": [.string(ann.text)]])
      let group = try ConversationPayload.parse(try #require(body)).id
      return (fake, me, ann, bob, group)
    }

    @Test("POST /conversations creates a group with self and the users, and a create event")
    func createGroup() async throws {
      // when
      let (fake, me, ann, _, group) = try await Self.group()

      // then
      let conversation = try #require(fake.conversation(group))
      #expect(conversation.type == .group)
      #expect(conversation.selfMember == me)
      #expect(conversation.otherMembers == [ann])
      #expect(fake.notifications.last?.events.first?.typeName == "conversation.create")
    }

    @Test("PUT /conversations/{id} renames and emits a rename event; a blank name is 400")
    func rename() async throws {
      // given
      let (fake, me, _, _, group) = try await Self.group()

      // when
      let renamed = try await fake.call(
        .put, "/conversations/\(group.text)", json: ["name": "Crew"])
      let blank = try await fake.call(.put, "/conversations/\(group.text)", json: ["name": " "])

      // then
      #expect(renamed.status == 200)
      #expect(blank.status == 400)
      #expect(fake.conversation(group)?.name == "Crew")
      guard case .conversationRename(let event)? = fake.notifications.last?.events.first else {
        Issue.record("expected a rename event, got \(String(describing: fake.notifications.last))")
        return
      }
      #expect(event.data == "Crew")
      #expect(event.from == me)
    }

    @Test("Adding members answers 200 with a join event, and 204 when all were members already")
    func addMembers() async throws {
      // given
      let (fake, _, ann, bob, group) = try await Self.group()
      let path = "/conversations/\(group.text)/members"

      // when
      let first = try await fake.call(.post, path, json: ["users": [.string(bob.text)]])
      let again = try await fake.call(
        .post, path, json: ["users": [.string(bob.text), .string(ann.text)]])

      // then
      #expect(first.status == 200)
      #expect(again.status == 204)
      #expect(fake.conversation(group)?.otherMembers == [ann, bob])
      #expect(fake.notifications.last?.events.first?.typeName == "conversation.member-join")
    }

    @Test("Removing members answers 200 with a leave event, and 204 when none were members")
    func removeMembers() async throws {
      // given
      let (fake, _, ann, bob, group) = try await Self.group()
      let path = "/conversations/\(group.text)/members"

      // when
      let first = try await fake.call(.delete, path, json: ["users": [.string(ann.text)]])
      let again = try await fake.call(.delete, path, json: ["users": [.string(bob.text)]])

      // then
      #expect(first.status == 200)
      #expect(again.status == 204)
      #expect(fake.conversation(group)?.otherMembers == [])
      #expect(fake.notifications.last?.events.first?.typeName == "conversation.member-leave")
    }

    @Test(
      "A remote user adds members once, with a member-join event; adding them again changes nothing"
    )
    func addMembersRemotely() async throws {
      // given
      let (fake, _, ann, bob, group) = try await Self.group()

      // when
      let first = fake.addMembersRemotely([bob], to: group, by: ann)
      let again = fake.addMembersRemotely([bob], to: group, by: ann)

      // then
      #expect(first)
      #expect(!again)
      #expect(fake.members(of: group).last == bob)
      #expect(fake.notifications.last?.events.first?.typeName == "conversation.member-join")
    }

    @Test(
      "Conversation endpoints answer 404 for an unknown conversation and 403 when self is not in it",
      arguments: [true, false])
    func unknownOrForeign(unknown: Bool) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let foreign = fake.createGroupRemotely(name: "Theirs", by: ann, members: [])
      let target = unknown ? UUID() : foreign
      fake.removeMembersRemotely([try #require(fake.selfUserID)], from: foreign, by: ann)

      // when
      let (status, _) = try await fake.call(
        .post, "/conversations/\(target.text)/messages",
        json: ["nonce": .string(UUID().text), "text": "Hi"])

      // then
      #expect(status == (unknown ? 404 : 403))
    }

    @Test("POST …/messages creates the message with a server time and a message-add event")
    func postMessage() async throws {
      // given
      let (fake, me, _, _, group) = try await Self.group()
      let nonce = UUID()

      // when
      let (status, body) = try await fake.call(
        .post, "/conversations/\(group.text)/messages",
        json: ["nonce": .string(nonce.text), "text": "Hello"])

      // then
      #expect(status == 201)
      let message = try MessagePayload.parse(try #require(body))
      #expect(message.nonce == nonce)
      #expect(message.from == me)
      #expect(fake.messages(in: group).map(\.text) == ["Hello"])
      #expect(fake.notifications.last?.events.first?.typeName == "conversation.message-add")
    }

    @Test("A repeated nonce answers the first message again and creates nothing")
    func idempotentMessage() async throws {
      // given
      let (fake, _, _, _, group) = try await Self.group()
      let body: JSONValue = ["nonce": .string(UUID().text), "text": "Once"]
      let first = try await fake.call(.post, "/conversations/\(group.text)/messages", json: body)
      let events = fake.notifications.count

      // when
      let second = try await fake.call(
        .post, "/conversations/\(group.text)/messages",
        json: ["nonce": body["nonce"] ?? .null, "text": "Twice?"])

      // then
      #expect(second.status == first.status)
      #expect(second.body == first.body)
      #expect(fake.messages(in: group).map(\.text) == ["Once"])
      #expect(fake.notifications.count == events)
    }

    @Test(
      "POST …/messages refuses a missing nonce or a blank text with 400",
      arguments: [
        ["text": "Hi"], ["nonce": "not-a-uuid", "text": "Hi"],
        ["nonce": "00000000-0000-4000-8000-000000000001", "text": ""],
      ] as [JSONValue])
    func badMessage(_ body: JSONValue) async throws {
      // given
      let (fake, _, _, _, group) = try await Self.group()

      // when
      let (status, _) = try await fake.call(
        .post, "/conversations/\(group.text)/messages", json: body)

      // then
      #expect(status == 400)
      #expect(fake.messages(in: group).isEmpty)
    }
  }

  @Suite("Notifications")
  struct Notifications {
    @Test("Setup calls emit the events a real change would, and every one parses")
    func setupEmitsEvents() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      _ = try await fake.call(
        .post, "/connections", json: ["user": .string(ann.text), "name": "Ann"])
      let me = try #require(fake.selfUserID)
      let conversation = try #require(fake.connection(from: me, to: ann)?.conversation)

      // when
      fake.acceptRemotely(by: ann)
      fake.postMessageRemotely(in: conversation, from: ann, text: "Hi!")
      fake.renameRemotely(conversation, to: "Ann & me", by: ann)
      let (_, body) = try await fake.call(.get, "/notifications", query: [QueryItem("size", "100")])

      // then
      let page = try Page<NotificationPayload>.parse(try #require(body), listKey: "notifications")
      #expect(page.failures.isEmpty)
      #expect(
        page.elements.flatMap(\.events).map(\.typeName) == [
          "conversation.create", "user.connection", "user.connection",
          "conversation.member-join", "conversation.message-add", "conversation.rename",
        ])
    }

    /// How far a contact's connection with the self user got before the contact renames
    /// themselves.
    enum ContactState: String, CaseIterable, CustomTestStringConvertible {
      case strangers, requested, connected

      var testDescription: String { rawValue }
    }

    @Test(
      "A contact's rename reaches the self user's news only once they are connected",
      arguments: zip(ContactState.allCases, [false, false, true]))
    func contactRename(_ state: ContactState, notified: Bool) async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      if state != .strangers {
        _ = try await fake.call(
          .post, "/connections", json: ["user": .string(ann.text), "name": "Ann"])
      }
      if state == .connected { fake.acceptRemotely(by: ann) }
      let before = fake.notifications.count

      // when
      let renamed = fake.renameUserRemotely(ann, to: "Annie")

      // then
      #expect(renamed)
      #expect(fake.user(ann)?.name == "Annie")
      let events = fake.notifications.dropFirst(before).flatMap(\.events)
      #expect(events == (notified ? [.userUpdate(UserUpdatePayload(id: ann, name: "Annie"))] : []))
    }

    @Test("A sender deleting their message on their own device removes it, with news for members")
    func remoteDeletion() async throws {
      // given
      let (fake, _, ann, _, group) = try await Conversations.group()
      let nonce = try #require(fake.postMessageRemotely(in: group, from: ann, text: "Oops"))
      let before = fake.notifications.count

      // when
      let deleted = fake.deleteMessageRemotely(nonce, in: group)
      let again = fake.deleteMessageRemotely(nonce, in: group)

      // then
      #expect(deleted)
      #expect(!again)
      #expect(fake.messages(in: group).isEmpty)
      let events = fake.notifications.dropFirst(before).flatMap(\.events)
      #expect(events.count == 1)
      guard case .messageDelete(let event) = events.first else {
        Issue.record("expected the news of a message deletion, got \(events)")
        return
      }
      #expect(event.conversation == group && event.from == ann && event.data == nonce)
    }

    @Test("Renaming a user the backend does not hold changes nothing and says so")
    func unknownUserRename() {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()

      // when
      let renamed = fake.renameUserRemotely(UUID(404), to: "Nobody")

      // then
      #expect(!renamed)
      #expect(fake.notifications.isEmpty)
    }

    /// A fake whose notifications are a group's creation and three messages in it.
    static func fakeWithFourNotifications() -> FakeBackend {
      let fake = FakeBackend()
      fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let group = fake.createGroupRemotely(name: "G", by: ann, members: [])
      for index in 0..<3 { fake.postMessageRemotely(in: group, from: ann, text: "\(index)") }
      return fake
    }

    @Test("since= answers the notifications after that id, paged; an unknown id is 404")
    func since() async throws {
      // given
      let fake = Self.fakeWithFourNotifications()
      let first = try #require(fake.notifications.first?.id)

      // when
      let after = try await fake.call(
        .get, "/notifications", query: [QueryItem("since", first.text), QueryItem("size", "2")])
      let unknown = try await fake.call(
        .get, "/notifications", query: [QueryItem("since", UUID().text)])

      // then
      let page = try Page<NotificationPayload>.parse(
        try #require(after.body), listKey: "notifications")
      #expect(page.elements.map(\.id) == Array(fake.notifications.map(\.id)[1...2]))
      #expect(page.hasMore)
      #expect(unknown.status == 404)
    }

    @Test(
      "Expired notifications are forgotten: since= one of them is 404, the kept ones are still served"
    )
    func expired() async throws {
      // given
      let fake = Self.fakeWithFourNotifications()
      let ids = fake.notifications.map(\.id)

      // when
      let expired = fake.expireNotifications(keepingLast: 2)

      // then
      #expect(expired.map(\.id) == Array(ids.prefix(2)))
      let forgotten = try await fake.call(
        .get, "/notifications", query: [QueryItem("since", ids[1].text)])
      let kept = try await fake.call(
        .get, "/notifications", query: [QueryItem("since", ids[2].text)])
      let page = try Page<NotificationPayload>.parse(
        try #require(kept.body), listKey: "notifications")
      #expect(fake.notifications.map(\.id) == Array(ids.suffix(2)))
      #expect(forgotten.status == 404)
      #expect(page.elements.map(\.id) == [ids[3]])
    }

    @Test("GET /notifications/last answers the newest, or 404 before any")
    func last() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      let before = try await fake.call(.get, "/notifications/last")

      // when
      _ = try await fake.call(.put, "/self", json: ["name": "New"])
      let after = try await fake.call(.get, "/notifications/last")

      // then
      #expect(before.status == 404)
      #expect(after.status == 200)
      #expect(after.body?["id"]?.stringValue == fake.notifications.last?.id.text)
    }

    @Test("The same seed gives the same ids and the same answers, run after run")
    func deterministic() async throws {
      // given
      func run() async throws -> JSONValue? {
        let fake = FakeBackend(uuids: .seeded(42))
        fake.insertSelfUser()
        let ann = fake.insertUser(name: "Ann")
        _ = try await fake.call(
          .post, "/connections", json: ["user": .string(ann.text), "name": "Ann"])
        return try await fake.call(.get, "/notifications").body
      }

      // when
      let first = try await run()
      let second = try await run()

      // then
      #expect(first != nil)
      #expect(first == second)
    }
  }
}

extension FakeBackendTests.Conversations {
  @Test("A group may take the client's id; the same id again answers the group and creates nothing")
  func clientChosenID() async throws {
    // given
    let fake = FakeBackend()
    fake.insertSelfUser()
    let id = UUID()
    let body: JSONValue = ["id": .string(id.text), "name": "Mine", "users": []]

    // when
    let first = try await fake.call(.post, "/conversations", json: body)
    let again = try await fake.call(.post, "/conversations", json: body)

    // then
    #expect(first.status == 201)
    #expect(again.status == 200)
    #expect(fake.conversation(id)?.name == "Mine")
    #expect(fake.notifications.count == 1)
  }
}
