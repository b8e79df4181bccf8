/// Keeps count of a component's asynchronous work so that tests can wait until all of it is done.
///
/// It is the async counterpart of a dispatch group: components start their work with
/// ``run(_:fileID:line:operation:)`` instead of `Task { }`, and a test awaits
/// ``settle(within:)`` to know that everything, including work that the work itself
/// started, has finished. Production code reaches the tracker through ``WorkTracker/current`` or
/// takes one explicitly; TestSupport's `.settles` trait installs a fresh one per test.
public final class WorkTracker: Sendable {
  /// One piece of enrolled work that has not finished yet.
  public struct Job: Sendable, Hashable, CustomStringConvertible {
    /// What the work does, as its starter described it.
    public let label: String
    /// The file that started the work.
    public let fileID: String
    /// The line that started the work.
    public let line: Int
    /// Whether the work has begun; work enrolled as not yet begun waits for its executor (a busy
    /// main actor) until ``WorkTracker/Token/markStarted()``, so it is held up, not stuck.
    public internal(set) var hasStarted: Bool
    let serial: UInt64

    /// The label and where the work was started, such as `merge save (Models/Context.swift:42)`.
    public var description: String { "\(label) (\(fileID):\(line))" }
  }

  /// A handle for work enrolled with ``WorkTracker/enter(_:fileID:line:hasStarted:)``, to be left
  /// exactly once.
  public struct Token: Sendable {
    fileprivate let tracker: WorkTracker
    fileprivate let serial: UInt64

    /// Marks the work as begun, once its executor runs it.
    public func markStarted() {
      tracker.markStarted(serial)
    }

    /// Marks the work as finished; leaving a token twice has no further effect.
    public func leave() {
      tracker.finish(serial)
    }
  }

  private struct State {
    var nextSerial: UInt64 = 0
    var jobs: [UInt64: Job] = [:]
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
  }

  private let state = Locked(State())

  /// The tracker production code enrols work in when it was not handed one.
  @TaskLocal public static var current = WorkTracker()

  /// Creates a tracker with no work enrolled.
  public init() {}

  /// The work that has been started and not finished, oldest first.
  public var outstandingJobs: [Job] {
    state.withLock { $0.jobs.values.sorted { $0.serial < $1.serial } }
  }

  /// Whether no enrolled work is running.
  public var isIdle: Bool {
    state.withLock { $0.jobs.isEmpty }
  }

  /// Starts `operation` in a new task enrolled under `label`, and returns that task.
  ///
  /// The job is enrolled before this returns, so work that starts more work through the tracker
  /// never lets it look idle in between.
  @discardableResult
  public func run<Success: Sendable>(
    _ label: String,
    fileID: String = #fileID,
    line: Int = #line,
    operation: sending @escaping @isolated(any) () async -> Success
  ) -> Task<Success, Never> {
    let token = enter(label, fileID: fileID, line: line)
    return Task(executorPreference: ExecutorPreference.current) {
      defer { token.leave() }
      return await operation()
    }
  }

  /// Enrols work that is started elsewhere (a callback, a queue); call ``Token/leave()`` when done.
  ///
  /// Work that first waits for an executor, such as a task on the main actor, is enrolled with
  /// `hasStarted` false and marked with ``Token/markStarted()`` once it runs, so that a wait for
  /// the tracker can tell work held up behind a busy executor from work that is stuck.
  public func enter(
    _ label: String, fileID: String = #fileID, line: Int = #line, hasStarted: Bool = true
  ) -> Token {
    let serial = state.withLock { state in
      let serial = state.nextSerial
      state.nextSerial += 1
      state.jobs[serial] = Job(
        label: label, fileID: fileID, line: line, hasStarted: hasStarted, serial: serial)
      return serial
    }
    return Token(tracker: self, serial: serial)
  }

  fileprivate func markStarted(_ serial: UInt64) {
    state.withLock { $0.jobs[serial]?.hasStarted = true }
  }

  /// Waits, without blocking a thread, until the enrolled work has settled (none is left) or
  /// `timeout` has passed.
  ///
  /// - Returns: The work still running when the timeout passed; empty when the tracker went idle.
  public func settle(within timeout: Duration) async -> [Job] {
    if isIdle { return [] }
    let becameIdle = await firstResult(within: timeout) { await self.idle() ? true : nil } ?? false
    return becameIdle ? [] : outstandingJobs
  }

  /// Returns `true` once the tracker is idle, or `false` if the waiting task is cancelled first.
  private func idle() async -> Bool {
    let serial = state.withLock { state in
      defer { state.nextSerial += 1 }
      return state.nextSerial
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state in
          if state.jobs.isEmpty || Task.isCancelled { return true }
          state.waiters[serial] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { $0.waiters.removeValue(forKey: serial) }
      waiter?.resume()
    }
    return isIdle
  }

  fileprivate func finish(_ serial: UInt64) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard state.jobs.removeValue(forKey: serial) != nil, state.jobs.isEmpty else { return [] }
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }
}
