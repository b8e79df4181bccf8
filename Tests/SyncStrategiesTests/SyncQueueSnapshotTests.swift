import Foundation
import Models
import ModelsTestSupport
import SyncStrategies
import TestSupport
import Testing

@Suite("SyncQueueSnapshot", .tags(.sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct SyncQueueSnapshotTests {
  @Test("The queue reads as counts, and each item names its change, object and keys")
  func descriptions() async throws {
    // given
    let harness = Harness()
    let group = harness.make.conversation(name: "G", creator: harness.me)
    try await harness.insert([group, harness.make.message(in: group, from: harness.me)])
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    _ = await harness.next()

    // when
    let queue = await harness.queue()

    // then
    #expect(queue.description == "1 pending, 1 in flight, 1 blocked, 0 retrying, 0 failed")
    #expect(
      queue.inFlight.map(\.description) == [
        "update User \(harness.me.id.uuidString.lowercased()) [name]"
      ])
    #expect(
      queue.pending.map(\.description) == [
        "insert Conversation \(group.id.uuidString.lowercased())"
      ])
    #expect(!queue.isEmpty)
  }
}
