import Foundation
import Seams
import SyncStrategies

extension SyncEngine {
  /// Waits until the engine has nothing left to do by itself, moving `clock` past backoffs (a
  /// change's, or a pull's that was cut short) and anything else sleeping on it, and returns the
  /// queue as it ends.
  ///
  /// ```swift
  /// try stack.ui.context.save()
  /// let queue = await engine.settle(advancing: clock)
  /// #expect(queue.isIdle)
  /// ```
  ///
  /// It returns when the queue is idle (failed changes may remain: they wait for the app), when
  /// nothing can move (offline, stopped, or work that has not changed for `quietPeriod`, such as
  /// a request a test parked), or after `timeout` of real time. Work that has not begun, because
  /// its executor is busy, is never taken for stuck: it is waited for, within `timeout`.
  ///
  /// - Parameters:
  ///   - clock: The manual clock the engine (and the fake backend) sleep on; without one,
  ///     backoffs are waited out on the engine's own clock.
  ///   - timeout: How much real time to give the engine in all before returning anyway.
  ///   - quietPeriod: How long running work may stay unchanged, with nothing asleep on `clock`,
  ///     before it counts as stuck; raise it for a transport slower than the fake.
  public func settle(
    advancing clock: ManualTimeSource? = nil, timeout: Duration = .seconds(30),
    quietPeriod: Duration = .milliseconds(100)
  ) async -> SyncQueueSnapshot {
    await settlement(advancing: clock, timeout: timeout, quietPeriod: quietPeriod).queue
  }

  /// Waits as ``settle(advancing:timeout:quietPeriod:)`` does, and says why the wait ended, so
  /// that test helpers can fail loudly when it ended on stuck work or on the timeout.
  package func settlement(
    advancing clock: ManualTimeSource? = nil, timeout: Duration = .seconds(30),
    quietPeriod: Duration = .milliseconds(100)
  ) async -> Settlement {
    let deadline = ContinuousClock.now + timeout
    var previous: SyncQueueSnapshot?
    var stuck: (jobs: [WorkTracker.Job], since: ContinuousClock.Instant)?
    while ContinuousClock.now < deadline {
      let running = await tracker.settle(within: .milliseconds(20))
      if !running.isEmpty {
        // Work is running; if it sleeps on the manual clock, nothing else will wake it.
        if let clock, let next = clock.pendingSleeps.first {
          clock.advance(by: max(next, .zero))
          stuck = nil
          continue
        }
        // Work that has not begun waits for its executor (a busy main actor): it still moves.
        if running.contains(where: { !$0.hasStarted }) {
          stuck = nil
          continue
        }
        if let since = stuck?.since, stuck?.jobs == running {
          if ContinuousClock.now - since >= quietPeriod {
            return Settlement(queue: await queue(), ending: .stuck(running))
          }
        } else {
          stuck = (running, ContinuousClock.now)
        }
        continue
      }
      stuck = nil
      let snapshot = await queue()
      if !isRunning { return Settlement(queue: snapshot, ending: .stopped) }
      if !isOnline { return Settlement(queue: snapshot, ending: .offline) }
      // A pull cut short is pulled again by itself too, once its backoff ends.
      let pullWait = pullRetryTimer.map { $0.at - time.now() }
      if snapshot.isIdle && pullWait == nil { return Settlement(queue: snapshot, ending: .idle) }
      if let wait = (snapshot.retrying.map(\.retryIn) + (pullWait.map { [$0] } ?? [])).min() {
        if let clock {
          clock.advance(by: max(wait, .zero))
        } else {
          // The engine's own clock moves by itself: wait on it, within what is left of the timeout.
          let time = self.time
          _ = await firstResult(within: deadline - ContinuousClock.now) {
            try? await time.sleep(for: max(wait, .zero))
            return true
          }
        }
        // The timers' tasks may not sleep on the clock yet: what is due goes now.
        pump()
        pullIfRetryIsDue()
        continue
      }
      if !snapshot.pending.isEmpty {
        pump()
      } else if snapshot == previous {
        return Settlement(queue: snapshot, ending: .unchanged)
      }
      previous = snapshot
    }
    let running = await tracker.settle(within: .milliseconds(20))
    return Settlement(queue: await queue(), ending: .timedOut(running))
  }
}

/// How a wait for the engine to settle ended, with the queue as it ended.
package struct Settlement: Sendable {
  /// Why the wait ended.
  package enum Ending: Sendable, Hashable {
    /// Nothing is pending, in flight, blocked or retrying.
    case idle
    /// The engine is offline: what is pending waits for the network.
    case offline
    /// The engine is not running.
    case stopped
    /// The queue stopped changing with nothing running: what is left waits for the app.
    case unchanged
    /// These jobs stayed the same for the quiet period, such as a request a test parked.
    case stuck([WorkTracker.Job])
    /// The timeout passed with these jobs running.
    case timedOut([WorkTracker.Job])
  }

  /// The queue as the wait ended.
  package let queue: SyncQueueSnapshot
  /// Why the wait ended.
  package let ending: Ending
}
