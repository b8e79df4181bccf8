/// A clock on which sleeping takes no real time.
///
/// Each sleep moves the clock forward and returns. The demo waits out backoffs this way, so its
/// runs are fast and the same every time.
public final class VirtualTimeSource: TimeSource {
  private let elapsed = Locked(Duration.zero)

  /// Creates a clock at zero.
  public init() {}

  /// The virtual time slept so far.
  public func now() -> Duration { elapsed.withLock { $0 } }

  /// Moves the clock forward by `duration` and returns at once.
  public func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    elapsed.withLock { $0 += max(duration, .zero) }
    await Task.yield()
  }
}
