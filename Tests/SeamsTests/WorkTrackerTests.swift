import Seams
import TestSupport
import Testing

@Suite("WorkTracker", .tags(.seams), .timeBudget(.seconds(5)))
struct WorkTrackerTests {
  @Test("It is idle before any work is enrolled")
  func newTrackerIsIdle() {
    // given
    let tracker = WorkTracker()

    // when
    let outstanding = tracker.outstandingJobs

    // then
    #expect(tracker.isIdle)
    #expect(outstanding.isEmpty)
  }

  @Test("It counts work from the moment run returns until the work finishes")
  func runEnrolsUntilFinished() async {
    // given
    let tracker = WorkTracker()
    let (gate, opener) = AsyncStream<Void>.makeStream()

    // when
    let task = tracker.run("wait for the gate") {
      for await _ in gate { break }
    }

    // then
    #expect(tracker.outstandingJobs.map(\.label) == ["wait for the gate"])
    opener.yield()
    await task.value
    #expect(tracker.isIdle)
  }

  @Test("It tells work that waits for its executor from work that has begun")
  func startedIsTold() {
    // given
    let tracker = WorkTracker()
    let waiting = tracker.enter("waits for its executor", hasStarted: false)
    let running = tracker.enter("runs elsewhere")

    // when
    let before = tracker.outstandingJobs.map(\.hasStarted)
    waiting.markStarted()
    let after = tracker.outstandingJobs.map(\.hasStarted)

    // then
    #expect(before == [false, true])
    #expect(after == [true, true])
    waiting.leave()
    running.leave()
    #expect(tracker.isIdle)
  }

  @Test("It waits for work that the tracked work enqueues")
  func nestedWorkIsTracked() async {
    // given
    let tracker = WorkTracker()
    let finished = AsyncExpectation("inner work finished")

    // when
    tracker.run("outer") {
      tracker.run("inner") {
        try? await Task.sleep(for: .milliseconds(30))
        finished.fulfill()
      }
    }
    let outstanding = await tracker.settle(within: .seconds(2))

    // then
    #expect(outstanding.isEmpty)
    #expect(finished.fulfillmentCount == 1)
  }

  @Test("It names each job still running when the wait times out, with where it started")
  func timeoutListsOutstandingJobs() async {
    // given
    let tracker = WorkTracker()
    let token = tracker.enter(
      "merge save into UI context", fileID: "Models/Context.swift", line: 42)
    defer { token.leave() }

    // when
    let outstanding = await tracker.settle(within: .milliseconds(20))

    // then
    #expect(
      outstanding.map(\.description) == ["merge save into UI context (Models/Context.swift:42)"])
  }

  @Test("It counts a token's work once even if the token is left twice")
  func leavingTwiceIsHarmless() {
    // given
    let tracker = WorkTracker()
    let first = tracker.enter("first")
    let second = tracker.enter("second")

    // when
    first.leave()
    first.leave()

    // then
    #expect(tracker.outstandingJobs.map(\.label) == ["second"])
    second.leave()
    #expect(tracker.isIdle)
  }

  @Test("It returns at once when there is nothing to wait for")
  func idleTrackerReturnsImmediately() async {
    // given
    let tracker = WorkTracker()

    // when
    let outstanding = await tracker.settle(within: .seconds(30))

    // then
    #expect(outstanding.isEmpty)
  }

  @Test("It lets several waiters wait for the same work")
  func severalWaiters() async {
    // given
    let tracker = WorkTracker()
    tracker.run("short") { try? await Task.sleep(for: .milliseconds(20)) }

    // when
    async let first = tracker.settle(within: .seconds(2))
    async let second = tracker.settle(within: .seconds(2))
    let results = await (first, second)

    // then
    #expect(results.0.isEmpty && results.1.isEmpty)
  }

  @Test("It makes the tracker installed for a task reachable as current")
  func currentIsTaskLocal() async {
    // given
    let tracker = WorkTracker()

    // when
    let seen = WorkTracker.$current.withValue(tracker) { WorkTracker.current }

    // then
    #expect(seen === tracker)
    #expect(WorkTracker.current !== tracker)
  }
}
