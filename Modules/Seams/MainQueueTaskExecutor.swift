import Dispatch

/// A task executor that runs every job on the main dispatch queue, in the order the jobs come.
///
/// The main actor runs on that queue too. A simulation whose tasks prefer this executor, and
/// whose actors run on the main actor or have no executor of their own, therefore runs
/// everything in one serial order: the same seed, the same interleaving.
///
/// ```swift
/// await withTaskExecutorPreference(MainQueueTaskExecutor.shared) {
///   await engine.start()        // the engine and the fake run on the main queue
/// }
/// ```
public final class MainQueueTaskExecutor: TaskExecutor {
  /// The one instance; every job it gets goes to the same queue.
  public static let shared = MainQueueTaskExecutor()

  private let enqueued = Locked(0)

  private init() {}

  /// Queues `job` on the main queue, behind what is there already.
  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    enqueued.withLock { $0 += 1 }
    DispatchQueue.main.async { [self] in
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// How many jobs have been queued so far; a count that stops growing means nothing that
  /// prefers this executor is making progress.
  public var enqueuedJobs: Int { enqueued.withLock { $0 } }
}
