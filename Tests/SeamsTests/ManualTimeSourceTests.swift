import Seams
import TestSupport
import Testing

@Suite("ManualTimeSource", .tags(.seams), .timeBudget(.seconds(5)))
struct ManualTimeSourceTests {
  @Test("Sleepers wake only when the time is advanced past their deadline, earliest first")
  func wakesInOrder() async throws {
    // given
    let clock = ManualTimeSource()
    let woke = Recorder<Int>()
    let short = Task {
      try await clock.sleep(for: .seconds(1))
      woke.append(1)
    }
    let long = Task {
      try await clock.sleep(for: .seconds(3))
      woke.append(3)
    }
    await clock.waitForSleepers(2)

    // when
    clock.advance(by: .seconds(2))
    try await short.value
    let afterTwo = woke.elements
    clock.advance(by: .seconds(1))
    try await long.value

    // then
    #expect(afterTwo == [1])
    #expect(woke.elements == [1, 3])
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
