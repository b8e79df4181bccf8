import Seams
import TestSupport
import Testing

@Suite("SettlesTrait", .tags(.testSupport), .timeBudget(.seconds(10)))
struct SettlesTraitTests {
  @Test("It gives each test a fresh, idle tracker", .settles())
  func freshTrackerPerTest() {
    // when
    let tracker = WorkTracker.current

    // then
    #expect(tracker.isIdle)
    #expect(tracker !== WorkTracker.$current.withValue(WorkTracker()) { WorkTracker.current })
  }

  @Test("It waits after the body for work the body started", .settles(within: .seconds(2)))
  func waitsForWorkStartedByBody() {
    // given
    let tracker = WorkTracker.current

    // when
    tracker.run("finish soon") { try? await Task.sleep(for: .milliseconds(20)) }

    // then
    #expect(!tracker.isIdle)
  }

  @Test("It fails the test with one issue listing every job still running")
  func failsWhenWorkOutlivesTheBody() async throws {
    // given
    let test = try #require(Test.current)
    let trait = SettlesTrait.settles(within: .milliseconds(30))
    let (gate, opener) = AsyncStream<Void>.makeStream()
    defer { opener.finish() }

    // when / then
    try await withKnownIssue {
      try await trait.provideScope(for: test, testCase: Test.Case.current) {
        WorkTracker.current.run("upload avatar") { for await _ in gate {} }
        WorkTracker.current.run("merge save") { for await _ in gate {} }
      }
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.hasPrefix("2 enrolled jobs were still running after 30 ms")
          && $0.rawValue.contains("upload avatar (TestSupportTests/SettlesTraitTests.swift:")
          && $0.rawValue.contains("merge save")
      }
    }
  }

  @Test("It records the quiescence issue at the caller's line")
  func expectIdleRecordsAtCaller() async {
    // given
    let tracker = WorkTracker()
    let token = tracker.enter("stuck")
    defer { token.leave() }
    let expectedLine = #line + 4

    // when / then
    await withKnownIssue {
      await expectSettled(tracker, within: .milliseconds(10))
    } matching: { issue in
      issue.sourceLocation?.line == expectedLine
        && issue.comments.first?.rawValue.contains("stuck") == true
    }
  }

  @Test("It reports nothing when the tracker goes idle in time")
  func idleTrackerPasses() async {
    // given
    let tracker = WorkTracker()
    tracker.run("quick") {}

    // when
    let wentIdle = await expectSettled(tracker, within: .seconds(2))

    // then
    #expect(wentIdle)
  }
}
