import Synchronization

/// Lets at most `limit` tasks through at once and queues the rest in arrival order, without
/// blocking a thread; a queued task that is cancelled leaves the queue.
///
/// The transport limits requests on the wire with it, and the sync engine its sends.
public final class ConcurrencyLimiter: Sendable {
  private struct State {
    var running = 0
    var nextID = 0
    var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
  }

  /// How many tasks may hold a slot at once.
  public let limit: Int
  private let state = Mutex(State())

  /// Creates a limiter letting `limit` tasks through at once (at least one).
  public init(limit: Int) {
    self.limit = max(limit, 1)
  }

  /// How many tasks hold a slot, and how many wait for one.
  public var counts: (running: Int, waiting: Int) {
    state.withLock { ($0.running, $0.waiting.count) }
  }

  /// Waits for a slot.
  ///
  /// - Throws: `CancellationError` if the task is cancelled while it waits.
  public func acquire() async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if Task.isCancelled { return .failure(CancellationError()) }
          if state.running < limit {
            state.running += 1
            return .success(())
          }
          state.waiting.append((id, continuation))
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let removed = state.withLock { state -> CheckedContinuation<Void, any Error>? in
        guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiting.remove(at: index).continuation
      }
      removed?.resume(throwing: CancellationError())
    }
  }

  /// Gives a slot back, handing it to the longest waiting task if there is one.
  public func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      guard !state.waiting.isEmpty else {
        state.running -= 1
        return nil
      }
      return state.waiting.removeFirst().continuation
    }
    next?.resume()
  }
}
