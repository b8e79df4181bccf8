import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests.Resynchronising {
  @Test(
    "A leave the backend applied before the self user was added back, answered after a catch-up that listed them in the group, goes again"
  )
  func leaveAnsweredAfterCatchUpListedRejoin() async throws {
    // given: the backend applies the self user's leave of Lunch and holds its answer; Ann adds
    // them back, and the backend forgets those news; the app catches up while the leave is out,
    // and the lists show the self user in Lunch
    let (world, ann, lunch, _) = try await Self.start()
    world.fake.addFault(
      .once(RequestMatcher("DELETE", "/conversations/\(lunch)/members"), .holdAnswer))
    try world.save { try $0.delete(Conversation.self, id: lunch) }
    await world.fake.waitForParkedRequests(1)
    world.fake.addMembersRemotely([world.me], to: lunch, by: ann)
    world.fake.expireNotifications(keepingLast: 0)
    await world.engine.pullNotifications()
    await world.settle(allowing: .stuckWork)

    // when
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then: the app and the backend agree that the self user left
    #expect(world.ui.object(Conversation.self, id: lunch) == nil)
    #expect(!world.fake.members(of: lunch).contains(world.me))
    #expect(world.fake.members(of: lunch).contains(ann))
  }
}
