import Seams
import Testing

/// Gives each test case a fresh `WorkTracker` and fails the test if work it started has not
/// settled (finished) soon after its body.
///
/// "Settle" is TestSupport's one word for "wait until the work is done": this trait,
/// ``expectSettled(_:within:sourceLocation:)``, `WorkTracker.settle(within:)`, and the sync
/// engine's and `SyncWorld`'s `settle`.
public struct SettlesTrait: PerTestCaseTrait {
  /// How long to wait after the body for enrolled work to finish, before scaling.
  public let timeout: Duration

  /// Runs the test with a fresh tracker installed, then waits for its work to settle.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    let tracker = WorkTracker()
    try await WorkTracker.$current.withValue(tracker) { try await function() }
    await expectSettled(
      tracker, within: timeout,
      failureRecorder: FailureRecorder(sourceLocation: test.sourceLocation))
  }
}

extension Trait where Self == SettlesTrait {
  /// Gives each test a fresh work tracker and fails it if work outlives the body by `timeout`.
  public static func settles(within timeout: Duration = .seconds(1)) -> Self {
    SettlesTrait(timeout: timeout)
  }
}

/// Waits until the work enrolled in `tracker` has settled, recording one issue that lists every
/// unfinished job, with where it started, if `timeout` (scaled) passes first.
///
/// - Returns: Whether the work settled in time.
@discardableResult
public func expectSettled(
  _ tracker: WorkTracker = .current,
  within timeout: Duration = .seconds(1),
  sourceLocation: SourceLocation = #_sourceLocation
) async -> Bool {
  await expectSettled(
    tracker, within: timeout, failureRecorder: FailureRecorder(sourceLocation: sourceLocation))
}

@discardableResult
func expectSettled(
  _ tracker: WorkTracker, within timeout: Duration, failureRecorder: FailureRecorder
) async -> Bool {
  let outstanding = await tracker.settle(within: TimeoutScale.scaled(timeout))
  guard !outstanding.isEmpty else { return true }
  let list = outstanding.map { "  - \($0)" }.joined(separator: "\n")
  failureRecorder.record(
    "\(outstanding.count) enrolled \(outstanding.count == 1 ? "job was" : "jobs were") "
      + "still running after \(timeout.readable):\n\(list)")
  return false
}
