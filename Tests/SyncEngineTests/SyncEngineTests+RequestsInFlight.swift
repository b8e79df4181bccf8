import ConversationParsing
import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests {
  /// The engine lets at most `maximumRequestsInFlight` requests out at once: the rest of a
  /// backlog waits in the change log, not as tasks and request bodies in memory.
  @Suite("Requests in flight")
  @MainActor
  struct RequestsInFlight {
    @Test(
      "It sends no more requests at once than its limit, and the rest as answers come",
      arguments: [1, 2, 4])
    func limit(_ limit: Int) async throws {
      // given: a backend that holds every new group until the test lets it go
      let world = try await SyncWorld.start(makeEngine: { parts in
        SyncEngine(
          stack: parts.stack, transport: parts.transport, upstream: parts.upstream,
          downstream: parts.downstream, time: parts.clock, maximumRequestsInFlight: limit,
          onEvent: parts.onEvent)
      })
      world.fake.addFault(.always(RequestMatcher("POST", "/conversations"), .park))
      let groups = (0..<6).map { index in
        Conversation(
          id: world.ui.makeID(), kind: .group, name: "Group \(index)", creatorID: world.me,
          participantIDs: [world.me], lastEventTime: Date(timeIntervalSince1970: 1_800_000_000))
      }

      // when
      try world.save(groups)
      await world.fake.waitForParkedRequests(limit)
      await world.settle(allowing: .stuckWork)
      let outAtOnce = world.fake.parkedRequests.count
      world.fake.removeFaults()
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then
      #expect(outAtOnce == limit)
      #expect(world.fake.requests("POST", "/conversations").count == groups.count)
      for group in groups { #expect(world.fake.conversation(group.id)?.name == group.name) }
    }
  }
}
