import Foundation
import Seams
import Testing

/// Limits a test to a budget below a minute, which Swift Testing's `.timeLimit` cannot express.
///
/// The budget closest to the test counts: one on the test replaces its suite's, longer or
/// shorter, and so does one in `.courier(timeBudget:)`. That differs from Swift Testing's
/// `.timeLimit`, where the shortest limit wins, on purpose: a slow test in a quick suite can ask
/// for more. Give a test one or the other; where both apply, each ends the test by its own rule.
///
/// When the budget (scaled by ``TimeoutScale``) runs out, the test fails at once with its name,
/// the budget and the time it ran, and its body is cancelled. A test that passes but used more
/// than 90 % of its budget gets a warning, so budgets are raised before they turn into flaky
/// failures.
///
/// A body that ignores cancellation cannot be abandoned: Swift gives the trait a non-escaping
/// closure, and the runtime traps if it outlives the scope. Such a body is reported at its
/// deadline like any other; if it is still running ``gracePeriod`` (scaled) later, the trait
/// writes the test's name to standard error and ends the process with a failure, so the run
/// stops with a named culprit instead of hanging until CI's own timeout.
public struct TimeBudgetTrait: PerTestCaseTrait {
  /// The budget before scaling.
  public let budget: Duration
  /// How long a cancelled body may take to return before the process is ended, before scaling.
  public let gracePeriod: Duration

  /// Runs the test body against the clock, unless a budget given closer to the test (on the
  /// test itself, or a nested suite) replaces this one.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    guard !isReplaced(in: test) else { return try await function() }
    try await run(
      testName: test.name, recorder: FailureRecorder(sourceLocation: test.sourceLocation), function)
  }

  /// Whether `test` carries a budget declared after this one, closer to the test, which then
  /// is the one that counts: a test may ask for more, or less, than its suite.
  func isReplaced(in test: Test) -> Bool {
    let budgets = test.traits.compactMap { trait -> Duration? in
      (trait as? TimeBudgetTrait)?.budget ?? (trait as? CourierTestTrait)?.timeBudget.budget
    }
    guard let position = budgets.lastIndex(of: budget) else { return false }
    return position < budgets.index(before: budgets.endIndex)
  }

  /// Runs `function` within the budget, recording through `recorder` what went over.
  ///
  /// The body runs as the one child of a task group; the parent waits for whichever comes
  /// first, the body's end or the deadline, which one shared ``DeadlineWatchdog`` signals. A
  /// timer task per test made `.courier` cost about 240 µs per test case.
  ///
  /// - Parameter elapsed: Measures the time since the start; tests replace it to stand for a
  ///   slow body.
  func run(
    testName: String,
    recorder: FailureRecorder,
    elapsed: (ContinuousClock.Instant) -> Duration = { ContinuousClock.now - $0 },
    _ function: @Sendable () async throws -> Void
  ) async throws {
    let limit = TimeoutScale.scaled(budget)
    let grace = TimeoutScale.scaled(gracePeriod)
    let clock = ContinuousClock()
    let start = clock.now
    let bodyFinished = FinishedFlag()
    let outcome = FirstOutcome()
    try await withoutActuallyEscaping(function) { body in
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          defer { bodyFinished.set() }
          do {
            try await body()
            outcome.resolve(.finished)
          } catch {
            outcome.resolve(.failed(error))
            throw error
          }
        }
        let alarm = DeadlineWatchdog.shared.schedule(at: start + limit) {
          outcome.resolve(.timedOut)
        }
        let first = await outcome.value()
        DeadlineWatchdog.shared.cancel(alarm)
        guard case .timedOut = first else {
          try await group.next()
          return
        }
        recorder.record(
          "'\(testName)' exceeded its time budget of \(limit.readable) "
            + "(stopped after \((clock.now - start).readable)); its body was cancelled")
        group.cancelAll()
        let stuck = DeadlineWatchdog.shared.schedule(at: clock.now + grace) {
          Self.endProcess(testName, grace: grace, unless: bodyFinished)
        }
        while (try? await group.next()) != nil {}
        DeadlineWatchdog.shared.cancel(stuck)
      }
    }
    let used = elapsed(start)
    if bodyFinished.isSet, Self.usedMostOfBudget(elapsed: used, limit: limit) {
      recorder.recordWarning(
        "'\(testName)' used \(used.readable) of its \(limit.readable) time budget (over 90 %)")
    }
  }

  /// Whether a body that finished in `elapsed` used more than 90 % of `limit` without exceeding it.
  static func usedMostOfBudget(elapsed: Duration, limit: Duration) -> Bool {
    elapsed > limit * 0.9 && elapsed <= limit
  }

  /// Ends the process if a cancelled body is still running after its grace period, where the
  /// process is the test runner's own; where tests run inside an app (iOS and the other
  /// platforms of apps), ending the process would end the app, so it only says so.
  private static func endProcess(
    _ testName: String, grace: Duration, unless bodyFinished: FinishedFlag
  ) {
    guard !bodyFinished.isSet else { return }
    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
      let message =
        "TestSupport: '\(testName)' ignored cancellation and was still running "
        + "\(grace.readable) after its time budget ran out; it is left running.\n"
      FileHandle.standardError.write(Data(message.utf8))
    #else
      let message =
        "TestSupport: '\(testName)' ignored cancellation and was still running "
        + "\(grace.readable) after its time budget ran out; ending the test process.\n"
      FileHandle.standardError.write(Data(message.utf8))
      exit(EXIT_FAILURE)
    #endif
  }
}

extension Trait where Self == TimeBudgetTrait {
  /// Fails the test if it runs longer than `budget` (scaled by `COURIER_TIMEOUT_SCALE`).
  public static func timeBudget(_ budget: Duration, gracePeriod: Duration = .seconds(10)) -> Self {
    TimeBudgetTrait(budget: budget, gracePeriod: gracePeriod)
  }

  /// Fails the test if it runs longer than `budget` for each normal share of work it was asked
  /// to do: `work` is how many times the normal suite's share that is (more seeds or longer runs
  /// asked for through the environment), and below 1 it counts as 1.
  ///
  /// A search that asks a seeded test for ten times its seeds then fails on a broken rule, not on
  /// the clock.
  public static func timeBudget(
    _ budget: Duration, forWork work: Double, gracePeriod: Duration = .seconds(10)
  ) -> Self {
    TimeBudgetTrait(budget: budget * max(1, work), gracePeriod: gracePeriod)
  }
}

/// A flag that one task sets and others read.
final class FinishedFlag: Sendable {
  private let value = Locked(false)

  /// Whether ``set()`` was called.
  var isSet: Bool { value.withLock { $0 } }

  /// Sets the flag.
  func set() { value.withLock { $0 = true } }
}

/// How a timed body ended first: by itself, by throwing, or by running out of time.
enum BodyOutcome: Sendable {
  case finished
  case failed(any Error)
  case timedOut
}

/// The first ``BodyOutcome`` reported, which one task awaits; later reports are ignored.
final class FirstOutcome: Sendable {
  private let state = Locked<
    (outcome: BodyOutcome?, waiter: CheckedContinuation<BodyOutcome, Never>?)
  >(
    (nil, nil))

  /// Reports `outcome` unless one was reported already.
  func resolve(_ outcome: BodyOutcome) {
    let waiter = state.withLock { state -> CheckedContinuation<BodyOutcome, Never>? in
      guard state.outcome == nil else { return nil }
      state.outcome = outcome
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: outcome)
  }

  /// The first outcome, waiting for it without blocking.
  func value() async -> BodyOutcome {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> BodyOutcome? in
        if let outcome = state.outcome { return outcome }
        state.waiter = continuation
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}
