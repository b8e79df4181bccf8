import Seams
import Testing

/// A log sink that keeps every entry of one test and knows which errors the test expects.
public final class LogRecorder: LogSink {
  private struct State {
    var entries: [LogEntry] = []
    var allowances: [Allowance] = []
  }

  private struct Allowance {
    let fragment: String
    let recorder: FailureRecorder
    var matched = false
  }

  private let state = Locked(State())

  /// The recorder installed for the current test by `.failsOnLoggedErrors`, if any.
  @TaskLocal public static var current: LogRecorder?

  /// Creates an empty recorder.
  public init() {}

  /// Every entry received so far, in order.
  public var entries: [LogEntry] { state.withLock { $0.entries } }

  /// Keeps `entry`.
  public func receive(_ entry: LogEntry) {
    state.withLock { $0.entries.append(entry) }
  }

  /// Declares that an error whose message contains `fragment` is expected; it must then be logged.
  public func expectError(
    containing fragment: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let recorder = FailureRecorder(sourceLocation: sourceLocation)
    state.withLock { $0.allowances.append(Allowance(fragment: fragment, recorder: recorder)) }
  }

  /// Records an issue for every error entry no expectation covers, and for every expectation
  /// that no error met.
  public func verify(failureRecorder: FailureRecorder) {
    let (unexpected, unmet) = state.withLock { state in
      var unexpected: [LogEntry] = []
      for entry in state.entries where entry.level == .error {
        if let index = state.allowances.firstIndex(where: { entry.message.contains($0.fragment) }) {
          state.allowances[index].matched = true
        } else {
          unexpected.append(entry)
        }
      }
      return (unexpected, state.allowances.filter { !$0.matched })
    }
    for entry in unexpected {
      failureRecorder.record("An error was logged during the test: \(entry)")
    }
    for allowance in unmet {
      allowance.recorder.record(
        "An error containing '\(allowance.fragment)' was expected in the log, but none was logged")
    }
  }
}

/// Declares, inside a test carrying `.failsOnLoggedErrors`, that an error containing `fragment`
/// will be logged; the test then fails if it is not.
public func expectLoggedError(
  containing fragment: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard let recorder = LogRecorder.current else {
    FailureRecorder(sourceLocation: sourceLocation)
      .record("expectLoggedError needs the .failsOnLoggedErrors trait on the test or its suite")
    return
  }
  recorder.expectError(
    containing: fragment, sourceLocation: sourceLocation)
}

/// Installs a ``LogRecorder`` as the log sink for each test case and fails the test for every
/// error-level entry it did not declare with ``expectLoggedError(containing:sourceLocation:)``.
public struct LoggedErrorsTrait: PerTestCaseTrait {
  /// Runs the test with a fresh recorder as the sink, then checks what was logged.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    let recorder = LogRecorder()
    defer { recorder.verify(failureRecorder: FailureRecorder(sourceLocation: test.sourceLocation)) }
    try await LogRecorder.$current.withValue(recorder) {
      try await CourierLogger.$sink.withValue(recorder) { try await function() }
    }
  }
}

extension Trait where Self == LoggedErrorsTrait {
  /// Fails a test for every error it logs without declaring it.
  public static var failsOnLoggedErrors: Self { LoggedErrorsTrait() }
}
