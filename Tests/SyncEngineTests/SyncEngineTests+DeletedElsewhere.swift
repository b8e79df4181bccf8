import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests {
  /// A message the user deletes here whose deletion the backend refused, and which the self user
  /// then deletes on another device: the news of that deletion leave nothing to decide.
  @Suite("A refused message deletion the news carry out")
  @MainActor
  struct DeletedElsewhere {
    /// How the news of the deletion elsewhere reach the client.
    enum News: String, CaseIterable, CustomTestStringConvertible {
      case pull = "a pull"
      case catchUp = "a catch-up after the backend forgot the cursor"

      var testDescription: String { rawValue }
    }

    @Test(
      "A message deletion refused here and carried out on another device is settled by its news, and giving up brings nothing back",
      arguments: News.allCases)
    func settledByNews(news: News) async throws {
      // given: the user's message in Ann's group, deleted here; the backend refuses the deletion
      let world = try await SyncWorld.start()
      let ann = world.fake.insertUser(name: "Ann")
      let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [world.me])
      await world.engine.pullNotifications()
      await world.settle()
      let message = Message(
        nonce: UUID(), conversationID: group, senderID: world.me, text: "hi",
        localTime: Date(timeIntervalSince1970: 1_800_000_000))
      try world.save([message])
      await world.settle()
      world.fake.addFault(
        .once(RequestMatcher("DELETE", "/conversations/*/messages/*"), .status(403)))
      expectLoggedError(containing: "refused for good")
      try world.save { try $0.delete(Message.self, id: message.id) }
      await world.settle()
      world.fake.deleteMessageRemotely(message.id, in: group)
      if news == .catchUp { _ = world.fake.expireNotifications(keepingLast: 1) }

      // when
      await world.engine.pullNotifications()
      await world.settle()
      let gaveUp = await world.engine.discardFailedChange(of: message.reference)
      await world.settle()

      // then
      #expect(!gaveUp)
      #expect(await world.engine.queue().failed.isEmpty)
      #expect(world.ui.object(Message.self, id: message.id) == nil)
    }
  }
}
