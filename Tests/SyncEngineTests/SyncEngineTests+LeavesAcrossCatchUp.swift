import CourierAPI
import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests.Resynchronising {
  /// When the backend applies a leave that is out while a catch-up reads the lists, and what
  /// another member does meanwhile.
  enum LeaveAcrossCatchUp: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The backend applies the leave, Ann adds the self user back, and the lists are read:
    /// the leave is older than the lists, and the return stands.
    case appliedBeforeReturn
    /// The request waits until the lists are read, and the backend applies it after them: the
    /// leave is newer than the lists, and the group goes.
    case appliedAfterLists

    var testDescription: String { rawValue }
  }

  @Test(
    "A leave out while a catch-up lists the self user in the group is sent once, and its answer's version against the lists' decides whether the group stays",
    arguments: LeaveAcrossCatchUp.allCases)
  func leaveAcrossCatchUp(_ leave: LeaveAcrossCatchUp) async throws {
    // given: the self user leaves Lunch and the request is held, before or after the backend
    // applies it; Ann adds them back if it was applied; the backend forgets its news, and the
    // app catches up while the leave is out, the lists showing the self user in Lunch
    let (world, ann, lunch, _) = try await Self.start()
    let fault: Fault = leave == .appliedBeforeReturn ? .holdAnswer : .park
    world.fake.addFault(.once(RequestMatcher("DELETE", "/conversations/\(lunch)/members"), fault))
    try world.save { try $0.delete(Conversation.self, id: lunch) }
    await world.fake.waitForParkedRequests(1)
    if leave == .appliedBeforeReturn {
      world.fake.addMembersRemotely([world.me], to: lunch, by: ann)
    }
    world.fake.expireNotifications(keepingLast: 0)
    await world.engine.pullNotifications()
    await world.settle(allowing: .stuckWork)

    // when
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then: the leave went once, and the app and the backend agree on who is in Lunch
    let stays = leave == .appliedBeforeReturn
    #expect(world.fake.journal.filter { $0.route == .removeMembers }.count == 1)
    #expect((world.ui.object(Conversation.self, id: lunch) != nil) == stays)
    #expect(world.fake.members(of: lunch).contains(world.me) == stays)
    #expect(world.fake.members(of: lunch).contains(ann))
  }
}
