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
  /// a request a test parked), or after `timeout` of real time.
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
    let deadline = ContinuousClock.now + timeout
    var previous: SyncQueueSnapshot?
    var stuck: (jobs: [WorkTracker.Job], since: ContinuousClock.Instant)?
    while ContinuousClock.now < deadline {
      let running = await tracker.waitUntilIdle(timeout: .milliseconds(20))
      if !running.isEmpty {
        // Work is running; if it sleeps on the manual clock, nothing else will wake it.
        if let clock, let next = clock.pendingSleeps.first {
          clock.advance(by: max(next, .zero))
          stuck = nil
          continue
        }
        if let since = stuck?.since, stuck?.jobs == running {
          if ContinuousClock.now - since >= quietPeriod { return await queue() }
        } else {
          stuck = (running, ContinuousClock.now)
        }
        continue
      }
      stuck = nil
      let snapshot = await queue()
      if !isRunning || !isOnline { return snapshot }
      // A pull cut short is pulled again by itself too, once its backoff ends.
      let pullWait = pullRetryTimer.map { $0.at - time.now() }
      if snapshot.isIdle && pullWait == nil { return snapshot }
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
        return snapshot
      }
      previous = snapshot
    }
    return await queue()
  }
}
