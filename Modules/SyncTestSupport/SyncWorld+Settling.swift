import FakeBackend
import Foundation
import Seams
import SyncEngine
import SyncStrategies
import TestSupport
import Testing

extension SyncWorld {
  /// What a test expects ``SyncWorld/settle(within:allowing:sourceLocation:)`` to end on, beside
  /// an idle queue.
  public struct Allowance: OptionSet, Sendable {
    /// Work that does not move, such as a request the test parked or an answer it holds.
    public static let stuckWork = Allowance(rawValue: 1 << 0)
    /// An engine told it is offline while the fake stays online, for tests of the engine's own
    /// switch.
    public static let engineOffline = Allowance(rawValue: 1 << 1)

    /// The allowances as bits.
    public let rawValue: Int

    /// Creates allowances from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
  }

  /// Waits until the engine has nothing left to do by itself (moving the clock past backoffs
  /// and delays) and every merge landed, and returns the queue.
  ///
  /// It fails the test, naming what is left (the queue's items, parked requests, fault rules that
  /// never fired, requests the fake could not match, and the jobs still running with where they
  /// started), when it times out; when work stays stuck (a request parked or an answer held),
  /// unless `allowing` has ``Allowance/stuckWork`` because the test parked it on purpose; and when
  /// the engine is offline while the fake is online and changes wait, which ``setNetwork(_:)``
  /// prevents, unless `allowing` has ``Allowance/engineOffline``.
  ///
  /// When it fails, it also attaches the journal, the engine's events, the log and the running
  /// jobs to the test (``attachDiagnostics()``).
  ///
  /// It waits at most `timeout` of real time: 5 s scaled by TestSupport's `TimeoutScale`, as every
  /// TestSupport wait is. Work that stays the same for the engine's quiet period, scaled the same
  /// way, counts as stuck, so a slowed-down run does not take slow work for stuck work.
  @discardableResult
  public func settle(
    within timeout: Duration = TimeoutScale.scaled(.seconds(5)), allowing: Allowance = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> SyncQueueSnapshot {
    let settlement = await engine.settlement(
      advancing: clock, timeout: timeout, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
    // The merges of what the engine saved land in the UI; a parked request may keep other
    // work running for as long as the test likes, so only the merges are waited for.
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let running = await stack.tracker.settle(within: .milliseconds(20))
      if !running.contains(where: { $0.label.hasPrefix("merge") }) { break }
    }
    if let problem = problem(with: settlement, allowing: allowing) {
      Issue.record(
        "settle() \(problem)\n\(leftovers(of: settlement.queue))", sourceLocation: sourceLocation)
      await attachDiagnostics()
    }
    return settlement.queue
  }

  /// What went wrong with a settlement, or `nil` when it ended as a test expects.
  private func problem(with settlement: Settlement, allowing: Allowance) -> String? {
    switch settlement.ending {
    case .timedOut(let jobs):
      return "timed out with work running:\n" + Self.list(jobs.map(\.description))
    case .stuck(let jobs) where !allowing.contains(.stuckWork):
      return "stopped on work that did not move (pass allowing: .stuckWork if the test parked "
        + "it on purpose):\n" + Self.list(jobs.map(\.description))
    case .offline
    where fake.network == .online && !settlement.queue.isIdle
      && !allowing.contains(.engineOffline):
      return "ended with changes waiting because the engine is offline while the fake "
        + "backend's network is online; setNetwork(_:) moves both"
    case .idle, .offline, .stopped, .unchanged, .stuck:
      return nil
    }
  }

  /// What is left in the queue and the fake, one line per thing.
  func leftovers(of queue: SyncQueueSnapshot) -> String {
    var lines = ["queue: \(queue)"]
    lines += queue.pending.map { "  pending \($0)" }
    lines += queue.inFlight.map { "  in flight \($0)" }
    lines += queue.blocked.map { "  blocked \($0.item), waiting for \($0.waitingFor)" }
    lines += queue.retrying.map { "  retrying \($0.item) in \($0.retryIn)" }
    lines += queue.failed.map { "  failed \($0.object): \($0.reason)" }
    lines += fake.parkedRequests.map { index in
      "parked request #\(index) \(fake.parkedRequest(index).map(String.init(describing:)) ?? "")"
    }
    lines += fake.unfiredFaultRules.map { "fault rule that never fired: \($0)" }
    lines += fake.unmatchedRequests.map { "request the fake matched no endpoint for: \($0)" }
    lines.append("network: the fake is \(fake.network)")
    return lines.joined(separator: "\n")
  }

  private static func list(_ items: [String]) -> String {
    items.map { "  \($0)" }.joined(separator: "\n")
  }
}
