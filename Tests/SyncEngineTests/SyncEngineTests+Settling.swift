import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

extension SyncEngineTests {
  /// `settle(advancing:timeout:quietPeriod:)` waits out backoffs by itself, on a manual clock
  /// it is given or on the engine's own clock, so a test needs no sleep and no hand on the clock.
  @Suite("Settling")
  @MainActor
  struct Settling {
    /// How a request is told to wait before it goes again.
    enum Wait: String, CaseIterable, CustomTestStringConvertible {
      /// A 503: the engine's backoff.
      case backoff = "a 503's backoff"
      /// A 429 with `Retry-After: 30`, longer than the backoff.
      case retryAfter = "a 429's Retry-After"

      var fault: Fault {
        switch self {
        case .backoff: .status(503)
        case .retryAfter: .status(429, retryAfter: 30)
        }
      }

      var status: Int {
        switch self {
        case .backoff: 503
        case .retryAfter: 429
        }
      }

      var testDescription: String { rawValue }
    }

    @Test(
      "Settling moves the manual clock past a wait and returns once the change is sent",
      arguments: Wait.allCases)
    func movesTheClockPastWaits(wait: Wait) async throws {
      // given
      let world = try await SyncWorld.start()
      world.fake.addFault(.times(2, RequestMatcher("PUT", "/self"), wait.fault))
      let start = world.clock.now()
      try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }

      // when
      let queue = await world.engine.settle(
        advancing: world.clock, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))

      // then
      #expect(queue.isIdle)
      #expect(world.fake.requests("PUT", "/self").map(\.status) == [wait.status, wait.status, 200])
      #expect(world.fake.user(world.me)?.name == "Ada")
      #expect(world.clock.now() - start >= (wait == .retryAfter ? .seconds(60) : .seconds(3)))
    }

    @Test("Settling without a manual clock waits a backoff out on the engine's own clock")
    func waitsOnTheEnginesClock() async throws {
      // given: an engine on the system clock with a backoff of 20 ms
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")
      let stack = ModelStack.forTesting()
      let engine = SyncEngine(
        stack: stack, transport: fake.transport,
        upstream: .standard(retryPolicy: RetryPolicy(baseDelay: .milliseconds(20), jitter: 0)))
      await engine.start()
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(503)))
      try stack.ui.context.update(User.self, id: me) { $0.name = "Ada" }
      try stack.ui.context.save()

      // when
      let queue = await engine.settle(timeout: TimeoutScale.scaled(.seconds(5)))

      // then
      #expect(queue.isIdle)
      #expect(fake.requests("PUT", "/self").map(\.status) == [503, 200])
      #expect(fake.user(me)?.name == "Ada")
    }
  }
}
