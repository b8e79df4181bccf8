import Seams
import Testing

/// Gives each test case a fresh `WorkTracker` and fails the test if work it started is
/// still running after its body.
public struct QuiescentTrait: PerTestCaseTrait {
  /// How long to wait after the body for enrolled work to finish, before scaling.
  public let timeout: Duration

  /// Runs the test with a fresh tracker installed, then waits for it to go idle.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    let tracker = WorkTracker()
    try await WorkTracker.$current.withValue(tracker) { try await function() }
    await Quiescence.expectIdle(
      tracker, within: timeout,
      failureRecorder: FailureRecorder(sourceLocation: test.sourceLocation))
  }
}

extension Trait where Self == QuiescentTrait {
  /// Gives each test a fresh work tracker and fails it if work outlives the body by `timeout`.
  public static func quiescent(timeout: Duration = .seconds(1)) -> Self {
    QuiescentTrait(timeout: timeout)
  }
}

/// Waiting for a component's asynchronous work to settle, in a test.
public enum Quiescence {
  /// Waits until `tracker` is idle, recording one issue that lists every unfinished job if
  /// `timeout` (scaled) passes first.
  ///
  /// - Returns: Whether the tracker went idle in time.
  @discardableResult
  public static func expectIdle(
    _ tracker: WorkTracker = .current,
    within timeout: Duration = .seconds(1),
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    await expectIdle(
      tracker, within: timeout,
      failureRecorder: FailureRecorder(sourceLocation: sourceLocation))
  }

  @discardableResult
  static func expectIdle(
    _ tracker: WorkTracker, within timeout: Duration, failureRecorder: FailureRecorder
  ) async -> Bool {
    let outstanding = await tracker.waitUntilIdle(timeout: TimeoutScale.scaled(timeout))
    guard !outstanding.isEmpty else { return true }
    let list = outstanding.map { "  - \($0)" }.joined(separator: "\n")
    failureRecorder.record(
      "\(outstanding.count) enrolled \(outstanding.count == 1 ? "job was" : "jobs were") "
        + "still running after \(timeout.readable):\n\(list)")
    return false
  }
}
