/// The outcome of a run whose failed cases were run again (`--retry-failed K`): which cases passed
/// on a retry (flaky, with the attempt that passed), which failed every time, and the exit code
/// the run's policy gives.
///
/// Only the first run decides what is retried: a case that failed in it is followed through the
/// later attempts until one passes. A retry runs a failed test whole (a filter cannot pick a
/// parameterized case's arguments); its other cases are not counted again.
public struct RetryReport: Sendable, Equatable {
  /// A case that failed first and passed on a retry.
  public struct Flaky: Sendable, Equatable {
    /// The case.
    public let id: RunReport.CaseID
    /// The attempt that passed, counting the first run as 1.
    public let passedOnAttempt: Int
  }

  /// What a flaky case does to the exit code.
  public enum Policy: Sendable, Equatable {
    /// A case that passes on a retry is reported, and the run passes (the default).
    case flakyPasses
    /// A case that passes on a retry still fails the run (`--flaky-is-failure`).
    case flakyFails
  }

  /// The first run's report.
  public let firstRun: RunReport
  /// The cases that failed first and passed later, by name.
  public let flaky: [Flaky]
  /// The cases that failed in every attempt they ran in, by name.
  public let failing: [RunReport.CaseID]
  /// How many runs were read, the first included.
  public let attempts: Int

  /// Reads the event streams of the first run and of each retry, in order.
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for a line that is not JSON.
  public init(eventStreams: [String]) throws(ToolError) {
    var reports: [RunReport] = []
    for stream in eventStreams.isEmpty ? [""] : eventStreams {
      reports.append(try RunReport(eventStream: stream))
    }
    let first = reports[0]
    var flaky: [Flaky] = []
    var failing: [RunReport.CaseID] = []
    for id in first.tallies.filter({ $0.value.failed > 0 }).keys.sorted() {
      let passing = reports.indices.dropFirst().first { reports[$0].tallies[id]?.passed ?? 0 > 0 }
      if let passing {
        flaky.append(Flaky(id: id, passedOnAttempt: passing + 1))
      } else {
        failing.append(id)
      }
    }
    self.firstRun = first
    self.flaky = flaky
    self.failing = failing
    self.attempts = reports.count
  }

  /// The test ids to run again: those of the cases that have not passed yet, once each.
  public var testsToRetry: [String] {
    var seen: Set<String> = []
    return failing.map(\.testID).filter { seen.insert($0).inserted }
  }

  /// The summary line `N passed, N failed, N skipped`, counting a flaky case as passed.
  public var summary: String {
    let passed = firstRun.passedCount + flaky.count
    return "\(passed) passed, \(failing.count) failed, \(firstRun.skipped) skipped"
  }

  /// One line per flaky case: `FLAKY  Module.Suite/test()  passed on attempt 2 of 3`.
  public var flakyLines: [String] {
    flaky.map { "FLAKY  \($0.id)  passed on attempt \($0.passedOnAttempt) of \(attempts)" }
  }

  /// 0 when every case passed in the end (and flaky ones may pass under `policy`), 1 otherwise.
  public func exitCode(under policy: Policy) -> Int32 {
    if !failing.isEmpty { return 1 }
    if !flaky.isEmpty && policy == .flakyFails { return 1 }
    return 0
  }
}
