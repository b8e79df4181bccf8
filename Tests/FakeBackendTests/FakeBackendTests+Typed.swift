import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import HTTPRequest
import TestSupport
import Testing
import UserParsing

extension FakeBackendTests {
  @Suite("Typed answers and snapshots, without HTTP")
  struct Typed {
    @Test("answer gives the typed response and changes the state, as the HTTP route does")
    func answerChangesState() throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")

      // when
      let answer = fake.answer(.updateSelf(SelfUpdate(name: "Ada")))

      // then
      #expect(try answer.get() == .user(UserPayload(id: me, name: "Ada", handle: nil, accentID: 0)))
      #expect(fake.user(me)?.name == "Ada")
      #expect(fake.journal.isEmpty)
    }

    @Test("answer gives the typed error the HTTP route would have answered")
    func answerError() {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()

      // when
      let answer = fake.answer(.getUser(id: UUID(404)))

      // then
      #expect(throws: APIError.self) { try answer.get() }
      if case .failure(let error) = answer { #expect(error.code == 404) }
    }

    @Test("A snapshot holds users, groups with their members, and messages in accepted order")
    func snapshot() throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann")
      let group = fake.createGroupRemotely(name: "Lunch", by: me, members: [ann])
      let first = try #require(fake.postMessageRemotely(in: group, from: ann, text: "one"))
      let second = try #require(fake.postMessageRemotely(in: group, from: me, text: "two"))

      // when
      let snapshot = fake.snapshot

      // then
      #expect(snapshot.selfID == me)
      #expect(snapshot.users[ann]?.name == "Ann")
      #expect(snapshot.conversations[group]?.name == "Lunch")
      #expect(snapshot.conversations[group]?.members == [me, ann])
      #expect(snapshot.messages[group] == [first, second])
    }

    @Test(
      "A snapshot's lookups read one object each as the server held it when taken, whatever changes since"
    )
    func snapshotLookups() throws {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann")
      let chat = fake.connectRemotely(with: ann)
      let group = fake.createGroupRemotely(name: "Lunch", by: me, members: [ann])
      let posted = try #require(fake.postMessageRemotely(in: group, from: ann, text: "one"))

      // when
      let snapshot = fake.snapshot
      fake.renameRemotely(group, to: "Dinner", by: ann)
      fake.removeMembersRemotely([ann], from: group, by: me)
      _ = fake.postMessageRemotely(in: group, from: me, text: "two")

      // then
      #expect(snapshot.user(ann)?.name == "Ann")
      #expect(snapshot.user(UUID(404)) == nil)
      #expect(snapshot.connection(from: me, to: ann)?.conversation == chat)
      #expect(snapshot.conversation(group)?.name == "Lunch")
      #expect(snapshot.conversation(group)?.members == [me, ann])
      #expect(snapshot.conversation(UUID(404)) == nil)
      #expect(snapshot.members(of: group) == [me, ann])
      #expect(snapshot.messages(in: group).map(\.nonce) == [posted])
      #expect(fake.snapshot.conversation(group)?.name == "Dinner")
      #expect(fake.snapshot.messages(in: group).count == 2)
    }

    @Test(
      "A copy holds the same state with an empty journal, makes ids from its own source, and changes apart from the original"
    )
    func copy() async throws {
      // given
      let fake = FakeBackend(uuids: .seeded(1))
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann")
      let group = fake.createGroupRemotely(name: "Lunch", by: me, members: [ann])
      _ = try await fake.call(.get, "/self")

      // when
      let copied = fake.copy(uuids: .seeded(2))
      copied.renameRemotely(group, to: "Dinner", by: ann)
      fake.renameRemotely(group, to: "Brunch", by: ann)

      // then
      #expect(copied.selfUserID == me)
      #expect(copied.user(ann)?.name == "Ann")
      #expect(copied.conversationSummary(group)?.name == "Dinner")
      #expect(fake.conversationSummary(group)?.name == "Brunch")
      #expect(copied.journal.isEmpty)
      #expect(!fake.journal.isEmpty)
      let copiedNews = try #require(copied.notifications.last?.id)
      let originalNews = try #require(fake.notifications.last?.id)
      #expect(copiedNews == UUIDSource.seeded(2).next())
      #expect(copiedNews != originalNews)
      #expect(copied.notifications.count == fake.notifications.count)
    }

    @Test("A conversation summary holds the name and members the server has now, nil if unknown")
    func conversationSummary() {
      // given
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann")
      let bob = fake.insertUser(name: "Bob")
      let group = fake.createGroupRemotely(name: "Lunch", by: me, members: [ann])
      fake.renameRemotely(group, to: "Dinner", by: ann)
      fake.addMembersRemotely([bob], to: group, by: ann)

      // when
      let (known, unknown) = (fake.conversationSummary(group), fake.conversationSummary(UUID(404)))

      // then
      #expect(known?.name == "Dinner")
      #expect(known?.members == [me, ann, bob])
      #expect(unknown == nil)
    }
  }
}
