import Synchronization
import TestSupport
import Testing

@Suite("ManualTimeSource", .tags(.testSupport, .seams), .timeBudget(.seconds(5)))
struct ManualTimeSourceTests {
  @Test("Sleepers wake only when the time is advanced past their deadline, earliest first")
  func wakesInOrder() async throws {
    // given
    let clock = ManualTimeSource()
    let woke = Wakeups()
    let short = Task {
      try await clock.sleep(for: .seconds(1))
      woke.record(1)
    }
    let long = Task {
      try await clock.sleep(for: .seconds(3))
      woke.record(3)
    }
    await clock.waitForSleepers(2)

    // when
    clock.advance(by: .seconds(2))
    try await short.value
    let afterTwo = woke.order
    clock.advance(by: .seconds(1))
    try await long.value

    // then
    #expect(afterTwo == [1])
    #expect(woke.order == [1, 3])
    #expect(clock.now() == .seconds(3))
  }

  @Test("It reports how long each sleeper still has to wait")
  func pendingSleeps() async {
    // given
    let clock = ManualTimeSource()
    let sleeper = Task { try await clock.sleep(for: .milliseconds(500)) }
    await clock.waitForSleepers(1)

    // when
    let pending = clock.pendingSleeps

    // then
    #expect(pending == [.milliseconds(500)])
    #expect(clock.sleeperCount == 1)
    sleeper.cancel()
    _ = await sleeper.result
  }

  @Test("A cancelled sleeper throws CancellationError and leaves the clock")
  func cancellation() async {
    // given
    let clock = ManualTimeSource()
    let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
    await clock.waitForSleepers(1)

    // when
    sleeper.cancel()
    let outcome = await sleeper.result

    // then
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(clock.sleeperCount == 0)
  }

  @Test("Sleeping for zero or less returns at once")
  func zero() async throws {
    // given
    let clock = ManualTimeSource()

    // when
    try await clock.sleep(for: .zero)

    // then
    #expect(clock.sleeperCount == 0)
  }
}

/// The order in which sleepers woke.
private final class Wakeups: Sendable {
  private let list = Mutex<[Int]>([])

  var order: [Int] { list.withLock { $0 } }

  func record(_ sleeper: Int) { list.withLock { $0.append(sleeper) } }
}
