import ConversationParsing
import CourierAPI
import Foundation
import JSON
import Models
import ModelsTestSupport
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport
import UserParsing

extension UpstreamObjectSyncTests {
  @Suite("What strategies decide, right or wrong")
  @MainActor
  struct StrategyDecisions {
    @Test("A revert decision gives the change up: its keys take the backend's values back")
    func revert() async throws {
      // given
      let harness = TrackerHarness(upstream: UpstreamObjectSync(strategies: [RevertingStrategy()]))
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
      let request = try #require(await harness.next())

      // when
      let completion = await harness.complete(
        request, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
      await expectSettled(harness.stack.tracker)

      // then
      #expect(completion == .reverted(harness.me.reference, reason: "reverted: status 403"))
      #expect(await harness.localChanges(User.self).isEmpty)
      #expect(harness.ui.object(User.self, id: harness.me.id)?.name == "Me")
    }

    @Test(
      "A revert gives back only the keys that still hold what was refused; a newer edit stays to be sent"
    )
    func revertKeepsNewerEdit() async throws {
      // given
      let harness = TrackerHarness(upstream: UpstreamObjectSync(strategies: [RevertingStrategy()]))
      let accent = harness.me.accentID
      try harness.save {
        try $0.update(User.self, id: harness.me.id) {
          $0.name = "Ada"
          $0.accentID = accent + 1
        }
      }
      let refused = try #require(await harness.next())
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Bea" } }

      // when
      let completion = await harness.complete(
        refused, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
      await expectSettled(harness.stack.tracker)

      // then
      #expect(completion == .reverted(harness.me.reference, reason: "reverted: status 403"))
      #expect(harness.ui.object(User.self, id: harness.me.id)?.name == "Bea")
      #expect(harness.ui.object(User.self, id: harness.me.id)?.accentID == accent)
      #expect(await harness.localChanges(User.self).keys(of: harness.me.id) == [.name])
      let resent = try #require(await harness.next())
      #expect(resent.endpoint == .updateSelf(SelfUpdate(name: "Bea", accentID: accent)))
    }

    @Test("A strategy whose request carries none of the changed keys is reported, not looped on")
    func carriesNothing() async throws {
      // given
      let harness = TrackerHarness(
        upstream: UpstreamObjectSync(strategies: [CarryingNothingStrategy()]))
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }

      // when
      let request = await harness.next()

      // then
      #expect(request == nil)
      #expect(
        await harness.queue().failed.map(\.reason) == [
          "the strategy's request carries none of the changed keys"
        ])
    }

    @Test("A dependency cycle is reported in the queue and never sent")
    func cycle() async throws {
      // given
      let make = ModelFactory()
      let ann = make.user(name: "Ann")
      let bob = make.user(name: "Bob")
      let harness = TrackerHarness(
        [ann, bob],
        upstream: UpstreamObjectSync(strategies: [CyclicStrategy(ann: ann.id, bob: bob.id)]))

      // when
      try harness.save { context in
        try context.update(User.self, id: ann.id) { $0.name = "Ann 2" }
        try context.update(User.self, id: bob.id) { $0.name = "Bob 2" }
      }
      let request = await harness.next()
      let queue = await harness.queue()

      // then
      #expect(request == nil)
      #expect(queue.blocked.count == 2)
      #expect(queue.blocked.map(\.isCycle) == [true, true])
    }

    @Test(
      "Cycles are found however long they are, and only the objects on them",
      arguments: zip(
        [
          [(1, 2), (2, 1)], [(1, 2), (2, 3), (3, 1), (4, 1)], [(1, 2), (2, 3)], [(1, 1)],
        ] as [[(UInt64, UInt64)]],
        [[1, 2], [1, 2, 3], [], [1]] as [[UInt64]]))
    func cycleFinder(_ edges: [(UInt64, UInt64)], _ expected: [UInt64]) {
      // given
      func reference(_ number: UInt64) -> ObjectReference { ObjectReference(.user, UUID(number)) }
      var waits: [ObjectReference: [ObjectReference]] = [:]
      for (from, to) in edges { waits[reference(from), default: []].append(reference(to)) }

      // when
      let onCycle = UpstreamObjectSync.cycleMembers(waits)

      // then
      #expect(onCycle == Set(expected.map(reference)))
    }
  }
}
