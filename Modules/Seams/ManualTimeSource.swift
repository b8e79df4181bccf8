/// A ``TimeSource`` that only moves when the test advances it: code under test that waits
/// for a retry, a delay or an expiry waits until the test says the time has come.
///
/// ```swift
/// let clock = ManualTimeSource()
/// let sending = Task { try await transport.send(request) }
/// await clock.waitForSleepers(1)       // the retry is waiting
/// clock.advance(by: .seconds(2))       // …and now it runs
/// ```
public final class ManualTimeSource: TimeSource {
  private struct Sleeper {
    let deadline: Duration
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now: Duration = .zero
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]
    var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Locked(State())

  /// Creates a clock at zero.
  public init() {}

  /// The current manual time.
  public func now() -> Duration { state.withLock { $0.now } }

  /// How many tasks are sleeping on this clock now.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The durations the sleeping tasks still have to wait, shortest first.
  public var pendingSleeps: [Duration] {
    state.withLock { state in state.sleepers.values.map { $0.deadline - state.now }.sorted() }
  }

  /// Waits until `duration` of manual time has passed; returns at once for zero or less.
  public func sleep(for duration: Duration) async throws {
    try Task.checkCancellation()
    guard duration > .zero else { return }
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let (cancelled, ready) = state.withLock { state in
          if Task.isCancelled { return (true, [CheckedContinuation<Void, Never>]()) }
          state.sleepers[id] = Sleeper(deadline: state.now + duration, continuation: continuation)
          return (false, Self.takeSatisfiedWaiters(&state))
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        for waiter in ready { waiter.resume() }
      }
    } onCancel: {
      let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the time forward by `duration` and wakes every sleeper whose time has come, earliest
  /// first.
  public func advance(by duration: Duration) {
    let due = state.withLock { state in
      state.now += duration
      let due = state.sleepers.filter { $0.value.deadline <= state.now }
        .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      for (id, _) in due { state.sleepers[id] = nil }
      return due.map(\.value.continuation)
    }
    for continuation in due { continuation.resume() }
  }

  /// Waits, without blocking, until at least `count` tasks sleep on this clock.
  public func waitForSleepers(_ count: Int = 1) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        state.sleeperWaiters.append((count, continuation))
        return Self.takeSatisfiedWaiters(&state)
      }
      for waiter in ready { waiter.resume() }
    }
  }

  private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<
    Void, Never
  >] {
    let count = state.sleepers.count
    let ready = state.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
    state.sleeperWaiters.removeAll { $0.count <= count }
    return ready
  }
}
