import JSON

/// A test run as a JUnit XML file, read from the run's event stream: suites, cases, durations,
/// failures with their messages and source locations, skipped tests with their reasons, and
/// tags as properties.
///
/// A stream cut short by a crash still makes a valid file: a case that started and never ended
/// is reported as an error that says the run stopped while it was running, and a last line cut
/// in the middle is ignored.
public struct JUnitReport: Sendable, Equatable {
  /// One case: a test, or one argument set of a parameterized test.
  public struct Case: Sendable, Equatable {
    /// How a case ended.
    public enum Outcome: Sendable, Equatable {
      /// No issue that counts.
      case passed
      /// Issues that are not known and not warnings: each message with where it was recorded.
      case failed([Failure])
      /// Not run, with the reason given.
      case skipped(String)
      /// Started and never ended: the run stopped while it ran.
      case interrupted
    }

    /// The suite it belongs to, such as `ModelsTests.ModelStackTests/Merging`.
    public let suite: String
    /// The test's display name, with the case's arguments in brackets when parameterized.
    public let name: String
    /// The test's id.
    public let testID: String
    /// Seconds from start to end; zero for a skipped or interrupted case.
    public let seconds: Double
    /// The test's tags, those of enclosing suites included.
    public let tags: [String]
    /// How it ended.
    public let outcome: Outcome
  }

  /// One recorded issue of a failed case.
  public struct Failure: Sendable, Equatable {
    /// The issue's first line, such as `Expectation failed: 1 == 2`.
    public let message: String
    /// Further lines: comments and details.
    public let details: [String]
    /// Where it was recorded, as `File.swift:line:column`, if known.
    public let location: String?

    /// Creates a failure.
    public init(message: String, details: [String] = [], location: String? = nil) {
      self.message = message
      self.details = details
      self.location = location
    }
  }

  /// The cases, in the order they started (skipped ones when they were skipped).
  public let cases: [Case]

  private struct Started {
    let suite: String
    let name: String
    let testID: String
    let at: Double
    var failures: [Failure] = []
  }

  /// Reads an event stream (`--event-stream-version 0`).
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for a line that is not JSON,
  ///   unless it is the last one (cut short by a crash).
  public init(eventStream text: String) throws(ToolError) {
    var records: [TestRecord] = []
    var values: [JSONValue] = []
    for (number, value) in try EventValues.lines(of: text) {
      values.append(value)
      if let record = try TestRecord.record(from: value, line: number) {
        records.append(record)
      }
    }
    let selection = TagSelection(records: records)
    let byID = Dictionary(records.map { ($0.id, $0) }) { first, _ in first }
    let parameterized = Set(
      values.compactMap { value -> String? in
        guard value["kind"]?.stringValue == "test",
          value["payload"]?["isParameterized"] == .bool(true)
        else { return nil }
        return value["payload"]?["id"]?.stringValue
      })
    var running: [String: Started] = [:]
    var order: [String] = []
    var finished: [String: Case] = [:]

    func key(_ testID: String, _ arguments: String) -> String { testID + "\u{1}" + arguments }
    func describe(_ testID: String, _ arguments: String) -> (suite: String, name: String) {
      let record = byID[testID] ?? TestRecord(id: testID, displayName: testID, kind: .function)
      let suite = record.enclosingSuiteIDs.first ?? record.target
      return (
        suite, arguments.isEmpty ? record.displayName : "\(record.displayName) [\(arguments)]"
      )
    }
    func tags(_ testID: String) -> [String] {
      byID[testID].map { selection.tags(of: $0).sorted() } ?? []
    }

    for value in values where value["kind"]?.stringValue == "event" {
      guard let payload = value["payload"], let testID = payload["testID"]?.stringValue,
        byID[testID]?.kind != .suite
      else { continue }
      let arguments = payload["_testCase"]?["displayName"]?.stringValue ?? ""
      let at = EventValues.number(payload["instant"]?["since1970"]) ?? 0
      let isCaseEvent = !parameterized.contains(testID) || payload["_testCase"] != nil
      let id = key(testID, arguments)
      switch payload["kind"]?.stringValue {
      case "testStarted" where !parameterized.contains(testID), "testCaseStarted":
        let (suite, name) = describe(testID, arguments)
        running[id] = Started(suite: suite, name: name, testID: testID, at: at)
        order.append(id)
      case "issueRecorded" where isCaseEvent:
        let issue = payload["issue"]
        guard issue?["isKnown"] != .bool(true), issue?["_severity"]?.stringValue != "warning"
        else { continue }
        let texts = (payload["messages"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
        let location = issue?["sourceLocation"] ?? payload["_sourceLocation"]
        let place = location.flatMap { location -> String? in
          guard let file = location["fileID"]?.stringValue else { return nil }
          let line = EventValues.number(location["line"]).map { Int($0) } ?? 0
          let column = EventValues.number(location["column"]).map { Int($0) } ?? 0
          return "\(file):\(line):\(column)"
        }
        running[id]?.failures.append(
          Failure(
            message: texts.first ?? "an issue was recorded", details: Array(texts.dropFirst()),
            location: place))
      case "testEnded" where !parameterized.contains(testID), "testCaseEnded":
        guard let started = running.removeValue(forKey: id) else { continue }
        finished[id] = Case(
          suite: started.suite, name: started.name, testID: testID,
          seconds: max(0, at - started.at), tags: tags(testID),
          outcome: started.failures.isEmpty ? .passed : .failed(started.failures))
      case "testSkipped":
        let (suite, name) = describe(testID, "")
        let reason = (payload["_comments"]?.arrayValue ?? []).compactMap(\.stringValue)
          .joined(separator: " ")
        order.append(id)
        finished[id] = Case(
          suite: suite, name: name, testID: testID, seconds: 0, tags: tags(testID),
          outcome: .skipped(reason))
      default:
        break
      }
    }
    cases = order.compactMap { id in
      if let done = finished[id] { return done }
      guard let started = running[id] else { return nil }
      return Case(
        suite: started.suite, name: started.name, testID: started.testID, seconds: 0,
        tags: tags(started.testID), outcome: .interrupted)
    }
  }

  /// The JUnit XML document: one `testsuite` per suite, in the order their first cases started.
  public var xml: String {
    var suites: [String] = []
    var bySuite: [String: [Case]] = [:]
    for item in cases {
      if bySuite[item.suite] == nil { suites.append(item.suite) }
      bySuite[item.suite, default: []].append(item)
    }
    func count(_ cases: [Case]) -> String {
      let failures = cases.filter { if case .failed = $0.outcome { true } else { false } }.count
      let errors = cases.filter { $0.outcome == .interrupted }.count
      let skipped = cases.filter { if case .skipped = $0.outcome { true } else { false } }.count
      let seconds = cases.reduce(0) { $0 + $1.seconds }
      return
        "tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(EventValues.seconds(seconds))\""
    }
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<testsuites name=\"Courier\" \(count(cases))>\n"
    for suite in suites {
      let members = bySuite[suite] ?? []
      out += "  <testsuite name=\"\(Self.escape(suite))\" \(count(members))>\n"
      for item in members {
        out +=
          "    <testcase classname=\"\(Self.escape(item.suite))\" name=\"\(Self.escape(item.name))\" time=\"\(EventValues.seconds(item.seconds))\">\n"
        out += "      <properties>\n"
        out += "        <property name=\"id\" value=\"\(Self.escape(item.testID))\"/>\n"
        for tag in item.tags {
          out += "        <property name=\"tag\" value=\"\(Self.escape(tag))\"/>\n"
        }
        out += "      </properties>\n"
        switch item.outcome {
        case .passed:
          break
        case .failed(let failures):
          for failure in failures {
            let body = (failure.details + [failure.location.map { "at \($0)" } ?? ""])
              .filter { !$0.isEmpty }.joined(separator: "\n")
            out +=
              "      <failure message=\"\(Self.escape(failure.message))\" type=\"issue\">\(Self.escape(body))</failure>\n"
          }
        case .skipped(let reason):
          out += "      <skipped message=\"\(Self.escape(reason))\"/>\n"
        case .interrupted:
          out +=
            "      <error message=\"the run stopped while this case was running\" type=\"interrupted\"/>\n"
        }
        out += "    </testcase>\n"
      }
      out += "  </testsuite>\n"
    }
    out += "</testsuites>\n"
    return out
  }

  /// Text made safe for an XML attribute or element: markup characters escaped, and control
  /// characters XML 1.0 cannot hold replaced.
  static func escape(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\n": out += "&#10;"
      case "\t", "\r": out += "&#\(scalar.value);"
      case _ where scalar.value < 0x20: out += "?"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
