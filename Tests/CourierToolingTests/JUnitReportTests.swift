import CourierTooling
import Foundation
import TestSupport
import Testing

@Suite("JUnitReport", .tags(.tools), .timeBudget(.seconds(5)))
struct JUnitReportTests {
  /// A run of a small suite: a pass, a failure with a comment, a skipped test, and a
  /// parameterized test whose second case fails.
  static func events() throws -> String {
    String(decoding: try Fixtures.data(named: "run-events.jsonl", in: .module), as: UTF8.self)
  }

  @Test("Each case ends as it did: passed, failed with message and place, skipped with reason")
  func outcomes() throws {
    // given
    let events = try Self.events()

    // when
    let report = try JUnitReport(eventStream: events)

    // then
    let byName = Dictionary(uniqueKeysWithValues: report.cases.map { ($0.name, $0.outcome) })
    #expect(report.cases.count == 5)
    #expect(byName["passes"] == .passed)
    #expect(byName["skipped"] == .skipped("not today"))
    #expect(byName["param [1]"] == .passed)
    #expect(
      byName["fails"]
        == .failed([
          .init(
            message: "Expectation failed: 1 == 2", details: ["one is not two"],
            location: "CourierToolingTests/TmpSampleTests.swift:7:33")
        ]))
    guard case .failed(let failures)? = byName["param [2]"] else {
      Issue.record("the failing case is not reported as failed")
      return
    }
    #expect(failures.first?.location == "CourierToolingTests/TmpSampleTests.swift:9:62")
  }

  @Test("Cases carry their suite, duration and inherited tags, and the XML counts them")
  func xml() throws {
    // given
    let report = try JUnitReport(eventStream: try Self.events())

    // when
    let xml = report.xml

    // then
    #expect(report.cases.allSatisfy { $0.suite == "CourierToolingTests.TmpSampleTests" })
    #expect(report.cases.allSatisfy { $0.tags == ["tools"] })
    #expect(report.cases.allSatisfy { $0.seconds >= 0 && $0.seconds < 1 })
    #expect(
      xml.contains(
        "<testsuites name=\"Courier\" tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"1\""))
    #expect(xml.contains("<skipped message=\"not today\"/>"))
    #expect(xml.contains("<property name=\"tag\" value=\"tools\"/>"))
  }

  @Test("A stream cut short by a crash still makes a report that names the case that was running")
  func crash() throws {
    // given: the stream up to the failing case's issue, and half of the next line
    let lines = try Self.events().split(separator: "\n")
    let cut = lines.firstIndex { $0.contains("\"issueRecorded\"") } ?? lines.count
    let truncated = lines[..<cut].joined(separator: "\n") + "\n" + lines[cut].prefix(40)

    // when
    let report = try JUnitReport(eventStream: truncated)

    // then
    let interrupted = report.cases.filter { $0.outcome == .interrupted }.map(\.name)
    #expect(interrupted.contains("fails"))
    #expect(report.xml.contains("type=\"interrupted\""))
    #expect(report.xml.hasSuffix("</testsuites>\n"))
  }

  @Test(
    "Markup and control characters are escaped",
    arguments: zip(
      ["a < b & \"c\"", "line\nbreak", "bell\u{7}"],
      ["a &lt; b &amp; &quot;c&quot;", "line&#10;break", "bell?"]))
  func escaping(text: String, escaped: String) throws {
    // given: a stream with one test skipped for that reason
    let events = """
      {"kind":"test","payload":{"id":"M.S/t()/S.swift:1:1","displayName":"t","kind":"function"},"version":0}
      {"kind":"event","payload":{"_comments":[\(try String(decoding: JSONEncoder().encode(text), as: UTF8.self))],"kind":"testSkipped","testID":"M.S/t()/S.swift:1:1"},"version":0}
      """

    // when
    let xml = try JUnitReport(eventStream: events).xml

    // then
    #expect(xml.contains("<skipped message=\"\(escaped)\"/>"))
  }

  @Test("A broken line before the last one is an error that names it")
  func malformed() {
    // given
    let events = "not json\n{}\n"

    // when
    let error = #expect(throws: ToolError.self) { try JUnitReport(eventStream: events) }

    // then
    if case .malformedEventStream(let line, _)? = error {
      #expect(line == 1)
    } else {
      Issue.record("expected malformedEventStream, got \(String(describing: error))")
    }
  }
}
