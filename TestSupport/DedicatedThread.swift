import Foundation
import Seams

#if canImport(Glibc)
  import Glibc
#endif

/// Runs long synchronous work, such as thousands of seeded simulation runs, on a thread of its
/// own rather than on Swift's cooperative pool.
///
/// Swift Testing runs tests as tasks on a pool with one thread per core. A test that computes
/// for seconds without suspending holds one of those threads; on a two-core machine two such
/// tests stall every other test until they end, and those tests overrun their time budgets.
/// Work handed to ``run(niceness:_:)`` leaves the pool free, and on Linux its thread lowers
/// its own scheduling priority, so the short tests run first and the long work takes the CPU
/// they leave.
///
/// ```swift
/// let failures = await DedicatedThread.run { check in
///   var failures: [UInt64] = []
///   for seed in seeds where !check.isCancelled && !simulate(seed: seed) {
///     failures.append(seed)
///   }
///   return failures
/// }
/// ```
package enum DedicatedThread {
  /// The name the thread carries, visible in debuggers, `top -H` and crash logs (Linux keeps
  /// 15 characters of a thread's name).
  package static let threadName = "courier-thread"

  /// Runs `work` on a new thread with `niceness` added to its scheduling priority (0 keeps
  /// the priority; Linux only), and returns its result.
  ///
  /// Cancelling the waiting task does not stop the thread: `work` reads
  /// ``CancellationCheck/isCancelled`` and returns early when it is set.
  package static func run<Result: Sendable>(
    niceness: Int32 = 10,
    _ work: @escaping @Sendable (CancellationCheck) -> Result
  ) async -> Result {
    let check = CancellationCheck()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let thread = Thread {
          // Set from inside: on Linux a new thread otherwise keeps its creator's name.
          Thread.current.name = threadName
          _ = pthread_setspecific(marker, UnsafeRawPointer(bitPattern: 1))
          lowerPriority(by: niceness)
          continuation.resume(returning: work(check))
        }
        thread.stackSize = 8 << 20
        thread.start()
      }
    } onCancel: {
      check.cancel()
    }
  }

  /// Runs blocking, throwing `work` (socket calls, a database) on a new thread at the caller's
  /// priority, and returns its result or rethrows its error.
  package static func perform<Result: Sendable>(
    _ work: @escaping @Sendable () throws -> Result
  ) async throws -> Result {
    try await run(niceness: 0) { _ in Swift.Result { try work() } }.get()
  }

  /// Whether the calling code runs on a dedicated thread.
  package static var isCurrent: Bool { pthread_getspecific(marker) != nil }

  /// The thread-specific key that marks dedicated threads.
  private static let marker: pthread_key_t = {
    var key = pthread_key_t()
    _ = pthread_key_create(&key, nil)
    return key
  }()

  /// Adds `niceness` to the calling thread's scheduling priority; on Linux the nice value is
  /// per thread, and 0 names the calling one.
  private static func lowerPriority(by niceness: Int32) {
    #if os(Linux)
      guard niceness != 0 else { return }
      let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, current + niceness)
    #endif
  }
}

/// Tells work on a ``DedicatedThread`` whether the task waiting for it was cancelled, so that
/// it can stop early.
package final class CancellationCheck: Sendable {
  private let cancelled = Locked(false)

  init() {}

  /// Whether the waiting task was cancelled.
  package var isCancelled: Bool { cancelled.withLock { $0 } }

  func cancel() { cancelled.withLock { $0 = true } }
}
