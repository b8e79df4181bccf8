import Foundation
import ModelsTestSupport
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

@Suite("SyncEngineEvent", .tags(.sync), .timeBudget(.seconds(5)))
struct SyncEngineEventTests {
  static let post = (try? HTTPRequest(.post, "/connections", json: [:]))
  static let events: [SyncEngineEvent] = [
    post.map { .request($0, .status(201)) }, post.map { .request($0, .failed(.network(.offline))) },
    .notifications(count: 1, lastID: UUID(0x3F2A_1B4C)),
    .notifications(count: 0, lastID: nil), .connectivity(online: false),
    .connectivity(online: true),
    .changeRefused(ObjectReference(.message, UUID(2)), reason: "status 403", reverted: false),
    .changeRefused(ObjectReference(.user, UUID(3)), reason: "status 400", reverted: true),
    .changeDropped(
      DroppedChange(
        item: SyncQueueSnapshot.Item(object: ObjectReference(.message, UUID(4)), kind: .insert),
        conversation: UUID(5))),
    .caughtUp(lastID: UUID(0x3F2A_1B4C), droppedConversations: [UUID(6), UUID(7)]),
    .caughtUp(lastID: nil, droppedConversations: []),
    .problem(.downstream(.status(.getSelf, 500, nil))),
  ].compactMap { $0 }

  @Test(
    "Events read as transcript lines",
    arguments: zip(
      events,
      [
        "POST /connections → 201", "POST /connections → network failure: offline",
        "applied 1 notification (last 00000000)", "applied 0 notifications", "offline",
        "back online",
        "Message 00000000-0000-0000-0000-000000000002 refused: status 403",
        "User 00000000-0000-0000-0000-000000000003 reverted: status 400",
        "insert Message 00000000-0000-0000-0000-000000000004, dropped: the self user was removed from conversation 00000000-0000-0000-0000-000000000005",
        "caught up with the backend (last 00000000), 2 conversations dropped",
        "caught up with the backend",
        "problem: GET /self answered 500",
      ]))
  func descriptions(_ event: SyncEngineEvent, _ expected: String) {
    // when
    let text = event.description

    // then
    #expect(text == expected)
  }
}
