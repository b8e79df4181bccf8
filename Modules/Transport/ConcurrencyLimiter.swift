import Seams

/// Lets at most `limit` tasks through at once and queues the rest in arrival order, without
/// blocking a thread; a queued task that is cancelled leaves the queue.
///
/// Handing a slot to the next waiter costs O(1), however long the queue: waiters are kept in a
/// ring buffer, and a cancelled one is only forgotten, then skipped when its turn comes.
public final class ConcurrencyLimiter: Sendable {
  private struct State {
    var running = 0
    var nextID = 0
    var order = RingBuffer<Int>()
    var waiting: [Int: CheckedContinuation<Void, any Error>] = [:]
  }

  /// How many tasks may hold a slot at once.
  public let limit: Int
  private let state = Locked(State())

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
          if takeFreeSlot(&state) { return .success(()) }
          state.order.append(id)
          state.waiting[id] = continuation
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let removed = state.withLock { $0.waiting.removeValue(forKey: id) }
      removed?.resume(throwing: CancellationError())
    }
  }

  /// Takes a slot if one is free at once, without waiting.
  ///
  /// - Returns: Whether the caller now holds a slot.
  public func tryAcquire() -> Bool {
    state.withLock { takeFreeSlot(&$0) }
  }

  /// Counts one more running task if a slot is free.
  private func takeFreeSlot(_ state: inout State) -> Bool {
    guard state.running < limit else { return false }
    state.running += 1
    return true
  }

  /// Waits for a slot for at most `wait`, measured on `time`.
  ///
  /// - Returns: Whether the caller now holds a slot; `false` if `wait` ran out first, and then
  ///   it holds none and has left the queue.
  /// - Throws: `CancellationError` if the task is cancelled first.
  public func acquire(waitingAtMost wait: Duration, on time: any TimeSource) async throws -> Bool {
    if tryAcquire() { return true }
    guard wait > .zero else { return false }
    let acquired = await TimeLimit.run(wait, on: time) {
      (try? await self.acquire()) != nil
    } late: { acquiredAtTheLimit in
      // The slot came at the same moment as the limit: give it back.
      if acquiredAtTheLimit { self.release() }
    }
    switch acquired {
    case true?: return true
    case false?: throw CancellationError()
    case nil: return false
    }
  }

  /// Gives a slot back, handing it to the longest waiting task if there is one.
  public func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      while let id = state.order.popFirst() {
        if let waiter = state.waiting.removeValue(forKey: id) { return waiter }
      }
      state.running -= 1
      return nil
    }
    next?.resume()
  }
}
