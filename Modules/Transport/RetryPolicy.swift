import Seams

/// When and how long to wait before retrying a temporary failure of an idempotent request.
public struct RetryPolicy: Sendable, Hashable {
  /// The most attempts a request gets, the first included.
  public var maxAttempts: Int
  /// The wait before the second attempt; each later wait doubles.
  public var baseDelay: Duration
  /// The longest wait between attempts, before jitter.
  public var maxDelay: Duration
  /// How much the wait may vary either way, as a fraction of it (0.2 = ±20 %).
  public var jitter: Double

  /// Creates a policy.
  public init(
    maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(500),
    maxDelay: Duration = .seconds(30),
    jitter: Double = 0.2
  ) {
    self.maxAttempts = max(maxAttempts, 1)
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.jitter = min(max(jitter, 0), 1)
  }

  /// A policy that never retries.
  public static let never = RetryPolicy(maxAttempts: 1)

  /// The wait after failed attempt `attempt` (1 for the first), given `unit`, a random number in
  /// 0..<1, and the `Retry-After` the backend asked for, which is never undercut.
  public func delay(afterAttempt attempt: Int, unit: Double, retryAfter: Duration?) -> Duration {
    let exponent = min(max(attempt - 1, 0), 30)
    let doubled = baseDelay * (1 << exponent)
    let capped = doubled < maxDelay ? doubled : maxDelay
    let factor = 1 + jitter * (2 * unit - 1)
    let jittered = capped * factor
    guard let retryAfter else { return jittered }
    return jittered > retryAfter ? jittered : retryAfter
  }
}
