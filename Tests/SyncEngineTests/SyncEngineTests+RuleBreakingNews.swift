import ConversationParsing
import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

extension SyncEngineTests {
  /// The rules a save checks are for what the user does here: news of a value the backend
  /// took, which a rule here would refuse, are applied as the backend holds them, with the rest
  /// of their page.
  @Suite("News that break a rule here")
  @MainActor
  struct RuleBreakingNews {
    /// A value the backend holds that a rule here refuses.
    enum BlankValue: String, CaseIterable, CustomTestStringConvertible {
      case messageText = "a message of spaces"
      case groupName = "a group renamed to spaces"
      case contactName = "a contact renamed to spaces"

      var testDescription: String { rawValue }
    }

    @Test(
      "News of a value a rule here refuses are applied as the backend holds it, with the news after it",
      arguments: BlankValue.allCases)
    func appliedAsHeld(value: BlankValue) async throws {
      // given: Ann, a contact, and her group with the self user in it
      let world = try await SyncWorld.start()
      let ann = world.fake.insertUser(name: "Ann")
      _ = world.fake.connectRemotely(with: ann)
      let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [world.me])
      await world.engine.pullNotifications()
      await world.settle()
      let blank = "   "
      switch value {
      case .messageText: _ = world.fake.postMessageRemotely(in: group, from: ann, text: blank)
      case .groupName: _ = world.fake.renameRemotely(group, to: blank, by: ann)
      case .contactName: _ = world.fake.renameUserRemotely(ann, to: blank)
      }
      _ = world.fake.postMessageRemotely(in: group, from: ann, text: "after")

      // when
      await world.engine.pullNotifications()
      await world.settle()

      // then
      let texts = world.ui.messages(inConversationWithID: group).map(\.text)
      #expect(texts.last == "after")
      switch value {
      case .messageText: #expect(texts == [blank, "after"])
      case .groupName: #expect(world.ui.object(Conversation.self, id: group)?.name == blank)
      case .contactName: #expect(world.ui.object(User.self, id: ann)?.name == blank)
      }
    }

    @Test("A group the backend named with spaces still takes a change of another key here")
    func otherKeyOfABlankGroup() async throws {
      // given
      let world = try await SyncWorld.start()
      let ann = world.fake.insertUser(name: "Ann")
      let bob = world.fake.insertUser(name: "Bob")
      let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [world.me])
      _ = world.fake.renameRemotely(group, to: "  ", by: ann)
      await world.engine.pullNotifications()
      await world.settle()

      // when
      try world.save {
        try $0.update(Conversation.self, id: group) { $0.participantIDs.insert(bob) }
      }
      await world.settle()

      // then
      #expect(world.fake.members(of: group).contains(bob))
    }
  }
}
