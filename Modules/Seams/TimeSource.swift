/// Monotonic time that production code reads and sleeps on, so tests can replace it with a clock
/// they advance by hand and never sleep for real.
public protocol TimeSource: Sendable {
  /// The time elapsed since an arbitrary fixed start; only differences are meaningful.
  func now() -> Duration

  /// Suspends the task for `duration`, without blocking a thread.
  ///
  /// - Throws: `CancellationError` if the task is cancelled while it waits.
  func sleep(for duration: Duration) async throws
}

/// The real, monotonic time of the process.
public struct SystemTimeSource: TimeSource {
  private let clock = ContinuousClock()
  private let start: ContinuousClock.Instant

  /// Creates a time source that starts at zero now.
  public init() {
    start = clock.now
  }

  /// Time since this source was created.
  public func now() -> Duration { clock.now - start }

  /// Sleeps on the continuous clock.
  public func sleep(for duration: Duration) async throws {
    try await clock.sleep(for: duration)
  }
}
