import CourierTooling
import TestSupport
import Testing

@Suite("RunReport", .tags(.tools), .timeBudget(.seconds(5)))
struct RunReportTests {
  /// One event-stream line.
  static func event(_ kind: String, _ test: String, testCase: String? = nil, issue: String = "")
    -> String
  {
    let caseField = testCase.map { #""_testCase":{"displayName":"\#($0)"},"# } ?? ""
    let issueField = issue.isEmpty ? "" : #""issue":{\#(issue)},"#
    return
      #"{"kind":"event","payload":{\#(caseField)\#(issueField)"kind":"\#(kind)","testID":"\#(test)"},"version":0}"#
  }

  static let header = [
    #"{"kind":"test","payload":{"id":"T.S","kind":"suite"},"version":0}"#,
    #"{"kind":"test","payload":{"id":"T.S/plain()/S.swift:1:1","isParameterized":false,"kind":"function"},"version":0}"#,
    #"{"kind":"test","payload":{"id":"T.S/table(_:)/S.swift:2:1","isParameterized":true,"kind":"function"},"version":0}"#,
  ]

  /// One run: `plain` passes or fails, the table has two cases of which `b` may fail.
  static func run(plainFails: Bool, caseBFails: Bool, issue: String = #""isKnown":false"#)
    -> [String]
  {
    let plain = "T.S/plain()/S.swift:1:1"
    let table = "T.S/table(_:)/S.swift:2:1"
    return [
      event("testStarted", "T.S"), event("testStarted", plain),
      plainFails ? event("issueRecorded", plain, issue: issue) : nil,
      event("testEnded", plain),
      event("testStarted", table),
      event("testCaseStarted", table, testCase: "a"), event("testCaseEnded", table, testCase: "a"),
      event("testCaseStarted", table, testCase: "b"),
      caseBFails ? event("issueRecorded", table, testCase: "b", issue: issue) : nil,
      event("testCaseEnded", table, testCase: "b"),
      event("testEnded", table), event("testEnded", "T.S"),
    ].compactMap { $0 }
  }

  @Test("It counts cases, not functions, and a failed case once however many issues it had")
  func countsCases() throws {
    // given
    let stream = (Self.header + Self.run(plainFails: false, caseBFails: true)).joined(
      separator: "\n")

    // when
    let report = try RunReport(eventStream: stream)

    // then
    #expect(report.summary == "2 passed, 1 failed, 0 skipped")
  }

  @Test(
    "Known issues and warnings do not fail a case",
    arguments: [#""isKnown":true"#, #""isKnown":false,"_severity":"warning""#])
  func knownAndWarnings(_ issue: String) throws {
    // given
    let stream = (Self.header + Self.run(plainFails: true, caseBFails: true, issue: issue))
      .joined(separator: "\n")

    // when
    let report = try RunReport(eventStream: stream)

    // then
    #expect(report.summary == "3 passed, 0 failed, 0 skipped")
  }

  @Test("Over repeated runs it reports the cases whose outcome varied, with their tallies")
  func flaky() throws {
    // given
    let runs =
      Self.run(plainFails: false, caseBFails: true) + Self.run(plainFails: false, caseBFails: false)
      + Self.run(plainFails: true, caseBFails: true)
    let stream = (Self.header + runs).joined(separator: "\n")

    // when
    let report = try RunReport(eventStream: stream)

    // then
    #expect(report.flakyCases.map(\.id.description) == ["T.S/plain()", "T.S/table(_:) [b]"])
    #expect(report.flakyCases.map(\.tally.failed) == [1, 2])
    #expect(report.flakyCases.map(\.tally.passed) == [2, 1])
    #expect(report.failingCases.isEmpty)
  }

  @Test("In one run it names each failed case once, a parameterized one with its arguments")
  func failedCasesOfOneRun() throws {
    // given
    let stream = (Self.header + Self.run(plainFails: true, caseBFails: true)).joined(
      separator: "\n")

    // when
    let report = try RunReport(eventStream: stream)

    // then
    #expect(report.failingCases.map(\.description) == ["T.S/plain()", "T.S/table(_:) [b]"])
  }

  @Test("Skipped tests are counted apart")
  func skipped() throws {
    // given
    let stream = (Self.header + [Self.event("testSkipped", "T.S/plain()/S.swift:1:1")])
      .joined(separator: "\n")

    // when
    let report = try RunReport(eventStream: stream)

    // then
    #expect(report.summary == "0 passed, 0 failed, 1 skipped")
  }
}
