import Dispatch
import Seams

/// Watches the main queue, one round of it at a time, until the jobs of a simulation stop
/// coming; then resumes its waiter.
///
/// Each round is a plain block on the main queue, behind every job queued before it: it is not
/// a task job, so it does not count as progress itself, as a `Task.yield()` loop would.
@MainActor
final class QuiescenceProbe {
  private let tracker: WorkTracker
  private let giveUp: () -> Bool
  private let continuation: CheckedContinuation<Void, Never>
  private var lastJobs = MainQueueTaskExecutor.shared.enqueuedJobs
  private var quietRounds = 0
  private var rounds = 0

  /// Creates a probe that resumes `continuation` when the jobs stop, or when `giveUp` says so.
  init(
    tracker: WorkTracker, giveUp: @escaping () -> Bool,
    continuation: CheckedContinuation<Void, Never>
  ) {
    self.tracker = tracker
    self.giveUp = giveUp
    self.continuation = continuation
  }

  /// Queues the next round.
  func schedule() {
    DispatchQueue.main.async {
      MainActor.assumeIsolated { self.round() }
    }
  }

  private func round() {
    rounds += 1
    let jobs = MainQueueTaskExecutor.shared.enqueuedJobs
    if jobs == lastJobs {
      quietRounds += 1
    } else {
      quietRounds = 0
      lastJobs = jobs
    }
    if (quietRounds >= 3 && tracker.isIdle) || quietRounds >= 12 || rounds >= 100_000
      || (rounds % 64 == 0 && giveUp())
    {
      continuation.resume()
    } else {
      schedule()
    }
  }
}
