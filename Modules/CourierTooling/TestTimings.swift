import JSON

/// How long each test function took in earlier runs, keyed by its path, so that shards of a run
/// can be balanced by time rather than by count.
///
/// The file form is one line per test, `seconds<TAB>path`, sorted by path: easy to read, to diff
/// and to merge.
public struct TestTimings: Sendable, Equatable {
  /// Seconds per test path (`Module.Suite/test()`).
  public private(set) var seconds: [String: Double]

  /// Creates timings from seconds per test path.
  public init(seconds: [String: Double] = [:]) {
    self.seconds = seconds
  }

  /// Reads the file form; blank lines are ignored.
  ///
  /// - Throws: ``ToolError/malformedTimings(line:reason:)`` for a line without a tab, or with a
  ///   duration that is not a finite, non-negative number.
  public init(fileText text: String) throws(ToolError) {
    var seconds: [String: Double] = [:]
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated() where !line.isEmpty
    {
      guard let tab = line.firstIndex(of: "\t") else {
        throw .malformedTimings(line: number + 1, reason: "expected 'seconds<TAB>test path'")
      }
      let duration = line[..<tab]
      let path = String(line[line.index(after: tab)...])
      guard let value = Double(duration), value.isFinite, value >= 0 else {
        throw .malformedTimings(
          line: number + 1, reason: "'\(duration)' is not a duration in seconds")
      }
      guard !path.isEmpty else {
        throw .malformedTimings(line: number + 1, reason: "the test path is empty")
      }
      seconds[path] = value
    }
    self.seconds = seconds
  }

  /// The durations of the test functions that ended in an event stream
  /// (`--event-stream-version 0`), from each test's start to its end, all cases included.
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for a line that is not JSON,
  ///   unless it is the last one (cut short by a crash).
  public init(eventStream text: String) throws(ToolError) {
    var suites: Set<String> = []
    var started: [String: Double] = [:]
    var seconds: [String: Double] = [:]
    for (_, value) in try EventValues.lines(of: text) {
      guard let payload = value["payload"] else { continue }
      if value["kind"]?.stringValue == "test" {
        if payload["kind"]?.stringValue == "suite", let id = payload["id"]?.stringValue {
          suites.insert(id)
        }
        continue
      }
      guard let testID = payload["testID"]?.stringValue, !suites.contains(testID),
        let at = EventValues.number(payload["instant"]?["since1970"])
      else { continue }
      switch payload["kind"]?.stringValue {
      case "testStarted":
        started[testID] = at
      case "testEnded":
        if let start = started.removeValue(forKey: testID) {
          let path = TestRecord(id: testID, displayName: "", kind: .function).path
          seconds[path, default: 0] += max(0, at - start)
        }
      default:
        break
      }
    }
    self.seconds = seconds
  }

  /// These timings with every test of `newer` replaced by its newer duration.
  public func merging(_ newer: TestTimings) -> TestTimings {
    TestTimings(seconds: seconds.merging(newer.seconds) { _, latest in latest })
  }

  /// The file form: `seconds<TAB>path` per line, sorted by path, milliseconds kept.
  public var fileText: String {
    seconds.sorted { $0.key < $1.key }.map { path, value in
      "\(EventValues.seconds(value))\t\(path)\n"
    }.joined()
  }

}
