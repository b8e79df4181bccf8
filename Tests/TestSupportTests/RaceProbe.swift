import Foundation
import Seams
import TestSupport
import Testing

/// A counter written from two threads with no lock: a data race on purpose.
private final class UnguardedCounter: @unchecked Sendable {
  var value = 0
}

/// A fixture for `Tools/check-tsan`, not a check.
///
/// The gate runs it to prove that ThreadSanitizer, as this package builds it, reports a race:
/// under TSan it must end with a data race report.
@Suite("RaceProbe", .tags(.testSupport))
struct RaceProbe {
  @Test(
    "Two threads increment one counter without a lock",
    .enabled(
      if: ProcessInfo.processInfo.environment["COURIER_RACE_PROBE"] == "1",
      "a probe for Tools/check-tsan; it races on purpose"))
  func unguardedCounter() async throws {
    // given
    let counter = UnguardedCounter()
    // Both threads must be running at once: one that finished before the other started would
    // be ordered before it, and TSan reports no race between ordered accesses.
    let arrived = Locked(0)

    // when
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask {
          try await DedicatedThread.perform {
            arrived.withLock { $0 += 1 }
            while arrived.withLock({ $0 }) < 2 {}
            for _ in 0..<10_000 { counter.value += 1 }
          }
        }
      }
      try await group.waitForAll()
    }

    // then: some increments landed; under TSan the run ends with a data race report
    #expect(counter.value > 0)
  }
}
