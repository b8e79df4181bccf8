import Seams
import Testing

/// Something asynchronous code must do (or must not do) that a test awaits with a timeout.
///
/// Swift Testing's `confirmation` counts but does not wait; this waits without blocking:
///
/// ```swift
/// let saved = AsyncExpectation("the sync context saved")
/// context.onSave = { _ in saved.fulfill() }
/// try context.save()
/// await saved.fulfillment(within: .milliseconds(200))
/// ```
///
/// One task awaits an expectation at a time.
public final class AsyncExpectation: Sendable {
  /// How many fulfilments make the expectation met.
  public enum Count: Sendable, Hashable, CustomStringConvertible {
    /// Exactly this many; one more is a failure.
    case exactly(Int)
    /// This many or more.
    case atLeast(Int)
    /// None at all within the wait: an inverted expectation.
    case never

    /// How the count reads in a message, such as `exactly 2 times`.
    public var description: String {
      switch self {
      case .exactly(let count): "exactly \(count) \(count == 1 ? "time" : "times")"
      case .atLeast(let count): "at least \(count) \(count == 1 ? "time" : "times")"
      case .never: "never"
      }
    }
  }

  /// What the test waits for, as failure messages name it.
  public let description: String
  /// How many fulfilments the test expects.
  public let expectedCount: Count
  private let count = Locked(0)
  private let updates: AsyncStream<Int>
  private let continuation: AsyncStream<Int>.Continuation

  /// Creates an expectation named `description` that must be fulfilled `count` times.
  public init(_ description: String, count: Count = .exactly(1)) {
    self.description = description
    self.expectedCount = count
    (updates, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// How many times the expectation has been fulfilled so far.
  public var fulfillmentCount: Int { count.withLock { $0 } }

  /// Records one fulfilment; safe to call from any task or thread.
  public func fulfill() {
    let newCount = count.withLock { value in
      value += 1
      return value
    }
    continuation.yield(newCount)
  }

  /// Waits until the expectation is met or `timeout` (scaled) passes, and records an issue at the
  /// caller's line if it was not met.
  ///
  /// An inverted (``Count/never``) expectation waits the whole timeout and fails as soon as it is
  /// fulfilled. An ``Count/exactly(_:)`` expectation fails if it was fulfilled more often.
  ///
  /// - Returns: Whether the expectation was met.
  @discardableResult
  public func fulfillment(
    within timeout: Duration,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    let recorder = FailureRecorder(sourceLocation: sourceLocation)
    let target = expectedCount.threshold
    let reached: Int? =
      fulfillmentCount >= target
      ? fulfillmentCount
      : await firstResult(within: TimeoutScale.scaled(timeout)) { [updates] in
        for await value in updates where value >= target { return value }
        return nil
      }
    let finalCount = fulfillmentCount
    switch (expectedCount, reached) {
    case (.never, .none):
      return true
    case (.never, .some):
      recorder.record("'\(description)' must not happen, but it did within \(timeout.readable)")
      return false
    case (_, .none):
      recorder.record(
        "'\(description)' was not fulfilled \(expectedCount) within \(timeout.readable) "
          + "(fulfilled \(finalCount) \(finalCount == 1 ? "time" : "times"))")
      return false
    case (.exactly(let expected), .some) where finalCount > expected:
      recorder.record(
        "'\(description)' was fulfilled \(finalCount) times, expected \(expectedCount)")
      return false
    case (_, .some):
      return true
    }
  }
}

extension AsyncExpectation.Count {
  /// The fulfilment count at which waiting can stop.
  fileprivate var threshold: Int {
    switch self {
    case .exactly(let count), .atLeast(let count): count
    case .never: 1
    }
  }
}
