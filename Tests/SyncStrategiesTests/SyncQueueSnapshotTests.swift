import Foundation
import Models
import ModelsTestSupport
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

@Suite("SyncQueueSnapshot", .tags(.sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct SyncQueueSnapshotTests {
  @Test("The queue reads as counts, and each item names its change, object and keys")
  func descriptions() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(name: "G", creator: harness.me)
    try harness.insert([group, harness.make.message(in: group, from: harness.me)])
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    _ = await harness.next()

    // when
    let queue = await harness.queue()

    // then
    #expect(
      queue.description
        == "1 pending, 1 in flight, 1 blocked, 0 waiting on failures, 0 retrying, 0 failed")
    #expect(
      queue.inFlight.map(\.description) == [
        "update User \(harness.me.id.uuidString.lowercased()) [name]"
      ])
    #expect(
      queue.pending.map(\.description) == [
        "insert Conversation \(group.id.uuidString.lowercased())"
      ])
    #expect(!queue.isEmpty)
    #expect(!queue.isIdle)
  }

  @Test("Failed changes, and changes waiting on them, leave the queue idle but not empty")
  func idleWithFailures() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    try harness.insert([group, harness.make.message(in: group, from: harness.me)])
    let post = try #require(await harness.next())
    await harness.complete(post, .permanent(BackendFailure(responseClass: .permanent, status: 403)))

    // when
    let queue = await harness.queue()

    // then
    #expect(queue.isIdle)
    #expect(!queue.isEmpty)
    #expect(queue.failed.count == 1)
    #expect(queue.waitingOnFailure.count == 1)
  }
}
