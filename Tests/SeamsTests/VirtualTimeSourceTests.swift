import Seams
import TestSupport
import Testing

@Suite("VirtualTimeSource", .tags(.seams), .timeBudget(.seconds(5)))
struct VirtualTimeSourceTests {
  @Test("Sleeping moves the clock forward by the duration at once")
  func sleepAdvances() async throws {
    // given
    let clock = VirtualTimeSource()

    // when
    try await clock.sleep(for: .seconds(30))
    try await clock.sleep(for: .milliseconds(250))

    // then
    #expect(clock.now() == .milliseconds(30_250))
  }

  @Test("A negative duration does not move the clock back")
  func negativeIgnored() async throws {
    // given
    let clock = VirtualTimeSource()

    // when
    try await clock.sleep(for: .seconds(-5))

    // then
    #expect(clock.now() == .zero)
  }

  @Test("A cancelled task does not sleep and the clock stays put")
  func cancelled() async {
    // given
    let clock = VirtualTimeSource()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }

    // when
    let result = await task.result

    // then
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(clock.now() == .zero)
  }
}
