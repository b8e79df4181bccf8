import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("DedicatedThread", .tags(.testSupport), .timeBudget(.seconds(5)))
struct DedicatedThreadTests {
  @Test("It returns what the work computed, on a dedicated thread rather than the caller's")
  func runsOnItsOwnThread() async {
    // given
    let work: @Sendable (CancellationCheck) -> (Bool, Int) = { _ in
      (DedicatedThread.isCurrent, (1...100).reduce(0, +))
    }

    // when
    let (dedicated, sum) = await DedicatedThread.run(work)

    // then
    #expect(dedicated)
    #expect(!DedicatedThread.isCurrent)
    #expect(sum == 5_050)
  }

  #if os(Linux)
    @Test("Its thread runs at the lowered priority it was given, the caller's unchanged")
    func lowersPriority() async {
      // given
      let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)

      // when
      let inside = await DedicatedThread.run(niceness: 5) { _ in
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
      }

      // then
      #expect(inside == min(before + 5, 19))
      #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
    }
  #endif

  @Test("Cancelling the waiting task tells the work to stop")
  func cancellation() async {
    // given
    let started = AsyncExpectation("the work started")
    let task = Task {
      await DedicatedThread.run { check in
        started.fulfill()
        var spins = 0
        while !check.isCancelled { spins += 1 }
        return spins
      }
    }
    await started.fulfillment(within: .seconds(2))

    // when
    task.cancel()

    // then
    #expect(await task.value >= 0)
  }
}
