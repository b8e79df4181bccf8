import CourierTooling
import TestSupport
import Testing

@Suite("RetryReport", .tags(.tools), .timeBudget(.seconds(5)))
struct RetryReportTests {
  /// The event stream of one run made with ``RunReportTests/run(plainFails:caseBFails:issue:)``.
  static func stream(plainFails: Bool, caseBFails: Bool) -> String {
    (RunReportTests.header + RunReportTests.run(plainFails: plainFails, caseBFails: caseBFails))
      .joined(separator: "\n")
  }

  @Test("A case that passes on a retry is flaky, named with the attempt that passed")
  func flakyCase() throws {
    // given
    let attempts = [
      Self.stream(plainFails: true, caseBFails: true),
      Self.stream(plainFails: true, caseBFails: false),
      Self.stream(plainFails: false, caseBFails: false),
    ]

    // when
    let report = try RetryReport(eventStreams: attempts)

    // then
    #expect(
      report.flakyLines == [
        "FLAKY  T.S/plain()  passed on attempt 3 of 3",
        "FLAKY  T.S/table(_:) [b]  passed on attempt 2 of 3",
      ])
    #expect(report.failing.isEmpty)
    #expect(report.summary == "3 passed, 0 failed, 0 skipped")
  }

  @Test(
    "The exit code follows the policy: flaky passes unless asked otherwise, failing always fails",
    arguments: zip(
      [
        (false, RetryReport.Policy.flakyPasses), (false, .flakyFails), (true, .flakyPasses),
        (true, .flakyFails),
      ],
      [Int32(0), 1, 1, 1]))
  func policy(situation: (alwaysFails: Bool, policy: RetryReport.Policy), expected: Int32) throws {
    // given
    let attempts = [
      Self.stream(plainFails: true, caseBFails: false),
      Self.stream(plainFails: situation.alwaysFails, caseBFails: false),
    ]
    let report = try RetryReport(eventStreams: attempts)

    // when
    let code = report.exitCode(under: situation.policy)

    // then
    #expect(code == expected)
  }

  @Test("A case that fails every attempt is failing, and its test is the one to run again")
  func stillFailing() throws {
    // given
    let attempts = [
      Self.stream(plainFails: false, caseBFails: true),
      Self.stream(plainFails: true, caseBFails: true),
    ]

    // when
    let report = try RetryReport(eventStreams: attempts)

    // then
    #expect(report.failing.map(\.description) == ["T.S/table(_:) [b]"])
    #expect(report.testsToRetry == ["T.S/table(_:)/S.swift:2:1"])
    #expect(report.summary == "2 passed, 1 failed, 0 skipped")
    #expect(report.flaky.isEmpty)
  }

  @Test("A run without failures has nothing to retry and passes")
  func cleanRun() throws {
    // given
    let attempts = [Self.stream(plainFails: false, caseBFails: false)]

    // when
    let report = try RetryReport(eventStreams: attempts)

    // then
    #expect(report.testsToRetry.isEmpty)
    #expect(report.exitCode(under: .flakyFails) == 0)
    #expect(report.summary == "3 passed, 0 failed, 0 skipped")
  }
}
