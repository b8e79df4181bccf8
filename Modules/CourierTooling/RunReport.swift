import JSON

/// The outcome of a test run read from its event stream: how many test cases passed, failed and
/// were skipped, and for repeated runs, which cases passed sometimes and failed other times.
public struct RunReport: Sendable, Equatable {
  /// One test case: a test function, plus the arguments' description for a parameterized case.
  public struct CaseID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The test's id.
    public let testID: String
    /// The case's arguments, empty for a test that is not parameterized.
    public let arguments: String

    /// Creates a case id.
    public init(testID: String, arguments: String = "") {
      self.testID = testID
      self.arguments = arguments
    }

    /// Reads as `Module.Suite/test()` or `Module.Suite/test(_:) [arguments]`.
    public var description: String {
      let path = TestRecord(id: testID, displayName: "", kind: .function).path
      return arguments.isEmpty ? path : "\(path) [\(arguments)]"
    }

    /// Orders by description.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
  }

  /// How often a case passed and failed over the repetitions.
  public struct Tally: Sendable, Hashable {
    /// Runs in which the case passed.
    public var passed = 0
    /// Runs in which the case failed.
    public var failed = 0
  }

  /// Each case that ran, with its tally.
  public private(set) var tallies: [CaseID: Tally] = [:]
  /// How many tests were skipped, per run.
  public private(set) var skipped = 0

  /// Reads an event stream (`--event-stream-version 0`).
  ///
  /// A case fails when an issue that is not known and not a warning is recorded while it runs.
  /// A test that is not parameterized counts as one case; the cases of a parameterized test count
  /// one by one.
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for a line that is not JSON.
  public init(eventStream text: String) throws(ToolError) {
    var parameterized: Set<String> = []
    var suites: Set<String> = []
    var failing: Set<CaseID> = []
    var skippedIDs = 0
    for (number, line) in text.split(separator: "\n").enumerated() {
      let value: JSONValue
      do {
        value = try JSONParser.parse(String(line))
      } catch {
        throw .malformedEventStream(line: number + 1, reason: "\(error)")
      }
      guard let payload = value["payload"] else { continue }
      if value["kind"]?.stringValue == "test", let id = payload["id"]?.stringValue {
        if payload["kind"]?.stringValue == "suite" { suites.insert(id) }
        if case .bool(true)? = payload["isParameterized"] { parameterized.insert(id) }
        continue
      }
      guard let testID = payload["testID"]?.stringValue, !suites.contains(testID) else { continue }
      let caseID = CaseID(
        testID: testID, arguments: payload["_testCase"]?["displayName"]?.stringValue ?? "")
      switch payload["kind"]?.stringValue {
      case "testStarted" where !parameterized.contains(testID), "testCaseStarted":
        failing.remove(caseID)
      case "issueRecorded":
        let issue = payload["issue"]
        let known = issue?["isKnown"] == .bool(true)
        let warning = issue?["_severity"]?.stringValue == "warning"
        if !known && !warning { failing.insert(caseID) }
      case "testEnded" where !parameterized.contains(testID), "testCaseEnded":
        if failing.contains(caseID) {
          tallies[caseID, default: Tally()].failed += 1
        } else {
          tallies[caseID, default: Tally()].passed += 1
        }
      case "testSkipped":
        skippedIDs += 1
      default:
        break
      }
    }
    skipped = skippedIDs
  }

  /// Case runs that passed.
  public var passedCount: Int { tallies.values.reduce(0) { $0 + $1.passed } }
  /// Case runs that failed.
  public var failedCount: Int { tallies.values.reduce(0) { $0 + $1.failed } }

  /// The summary line `N passed, N failed, N skipped`.
  public var summary: String { "\(passedCount) passed, \(failedCount) failed, \(skipped) skipped" }

  /// The cases that passed in some runs and failed in others, by name.
  public var flakyCases: [(id: CaseID, tally: Tally)] {
    tallies.filter { $0.value.passed > 0 && $0.value.failed > 0 }
      .sorted { $0.key < $1.key }
      .map { (id: $0.key, tally: $0.value) }
  }

  /// The cases that failed in every run, by name.
  public var failingCases: [CaseID] {
    tallies.filter { $0.value.passed == 0 && $0.value.failed > 0 }.keys.sorted()
  }
}
