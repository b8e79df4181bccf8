import Seams
import TestSupport
import Testing

@Suite("LoggedErrorsTrait", .tags(.testSupport), .timeBudget(.seconds(5)))
struct LoggedErrorsTraitTests {
  let logger = CourierLogger(category: "sync")

  @Test("It fails a test that logs an error it did not declare")
  func undeclaredErrorFails() async throws {
    // given
    let test = try #require(Test.current)

    // when / then
    try await withKnownIssue {
      try await LoggedErrorsTrait.failsOnLoggedErrors.provideScope(
        for: test, testCase: Test.Case.current
      ) {
        logger.error("push of conversation 7 failed")
      }
    } matching: { issue in
      issue.mentions(
        "An error was logged during the test: [error] sync: push of conversation 7 failed"
      )
    }
  }

  @Test("It lets a declared error pass", .failsOnLoggedErrors)
  func declaredErrorPasses() {
    // given
    expectLoggedError(containing: "permanent failure")

    // when
    logger.error("permanent failure for message 3")

    // then
    #expect(LogRecorder.current?.entries.count == 1)
  }

  @Test("It fails a test whose declared error never came")
  func declaredButMissingFails() async throws {
    // given
    let test = try #require(Test.current)

    // when / then
    try await withKnownIssue {
      try await LoggedErrorsTrait.failsOnLoggedErrors.provideScope(
        for: test, testCase: Test.Case.current
      ) {
        expectLoggedError(containing: "timeout")
      }
    } matching: { issue in
      issue.mentions("An error containing 'timeout' was expected in the log")
    }
  }

  @Test(
    "It lets lower levels through without failing", .failsOnLoggedErrors,
    arguments: [LogLevel.debug, .info, .warning])
  func lowerLevelsPass(level: LogLevel) {
    // when
    logger.log(level, "retrying")

    // then
    #expect(LogRecorder.current?.entries.map(\.level) == [level])
  }

  @Test("It asks for the trait when an error is declared without it")
  func declaringWithoutTraitFails() {
    // when / then
    withKnownIssue {
      expectLoggedError(containing: "x")
    } matching: { issue in
      issue.mentions("needs the .failsOnLoggedErrors trait")
    }
  }
}

@Suite("CourierTestTrait", .tags(.testSupport), .courier(timeBudget: .seconds(5)))
struct CourierTestTraitTests {
  @Test("It installs seeded UUIDs, a fresh tracker and a log recorder together")
  func installsEverything() {
    // when
    let source = UUIDSource.current

    // then
    #expect(source.seed == TestIdentity.currentSeed)
    #expect(WorkTracker.current.isIdle)
    #expect(LogRecorder.current != nil)
  }

  @Test("It fails a test whose work outlives it, like .settles alone")
  func quiescenceIsChecked() async throws {
    // given
    let test = try #require(Test.current)
    let trait = CourierTestTrait.courier(
      timeBudget: .seconds(5), settleTimeout: .milliseconds(20))
    let (gate, opener) = AsyncStream<Void>.makeStream()
    defer { opener.finish() }

    // when / then
    try await withKnownIssue {
      try await trait.provideScope(for: test, testCase: Test.Case.current) {
        WorkTracker.current.run("never ends") { for await _ in gate {} }
      }
    } matching: { issue in
      issue.mentions("never ends")
    }
  }
}
