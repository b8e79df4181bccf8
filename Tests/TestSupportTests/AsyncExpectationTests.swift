import TestSupport
import Testing

@Suite("Expectation", .tags(.testSupport), .timeBudget(.seconds(10)))
struct ExpectationTests {
  @Test("It is met when async code fulfils it in time")
  func metWhenFulfilled() async {
    // given
    let expectation = AsyncExpectation("handler called")
    Task {
      try? await Task.sleep(for: .milliseconds(10))
      expectation.fulfill()
    }

    // when
    let met = await expectation.fulfillment(within: .seconds(2))

    // then
    #expect(met)
  }

  @Test("It fails with its description when not fulfilled in time")
  func failsWhenNotFulfilled() async {
    // given
    let expectation = AsyncExpectation("handler called")

    // when
    await withKnownIssue {
      await expectation.fulfillment(within: .milliseconds(20))
    } matching: { issue in
      issue.mentions(
        "'handler called' was not fulfilled exactly 1 time within 20 ms (fulfilled 0 times)")
    }

    // then
    #expect(expectation.fulfillmentCount == 0)
  }

  @Test("It reports the failure at the line that awaited it")
  func failureAtCallerLine() async {
    // given
    let expectation = AsyncExpectation("never")
    let line = #line + 4

    // when / then
    await withKnownIssue {
      await expectation.fulfillment(within: .milliseconds(5))
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.sourceLocation?.fileID.hasSuffix("ExpectationTests.swift") == true
    }
  }

  @Test("It fails an exact count that was exceeded")
  func exactCountExceeded() async {
    // given
    let expectation = AsyncExpectation("saved", count: .exactly(2))
    for _ in 0..<3 { expectation.fulfill() }

    // when / then
    await withKnownIssue {
      await expectation.fulfillment(within: .milliseconds(50))
    } matching: { issue in
      issue.mentions("'saved' was fulfilled 3 times, expected exactly 2 times")
    }
  }

  @Test(
    "It accepts any count at or above a minimum",
    arguments: zip([2, 3, 10], [true, true, true]))
  func atLeastCount(fulfilments: Int, expected: Bool) async {
    // given
    let expectation = AsyncExpectation("event", count: .atLeast(2))
    for _ in 0..<fulfilments { expectation.fulfill() }

    // when
    let met = await expectation.fulfillment(within: .milliseconds(50))

    // then
    #expect(met == expected)
  }

  @Test("It fails an at-least count that was not reached")
  func atLeastNotReached() async {
    // given
    let expectation = AsyncExpectation("event", count: .atLeast(2))
    expectation.fulfill()

    // when / then
    await withKnownIssue {
      await expectation.fulfillment(within: .milliseconds(20))
    } matching: { issue in
      issue.mentions("not fulfilled at least 2 times within 20 ms (fulfilled 1 time)")
    }
  }

  @Test("It passes an inverted expectation that nothing fulfils")
  func invertedPasses() async {
    // given
    let expectation = AsyncExpectation("request sent", count: .never)

    // when
    let met = await expectation.fulfillment(within: .milliseconds(20))

    // then
    #expect(met)
  }

  @Test("It fails an inverted expectation as soon as it is fulfilled")
  func invertedFails() async {
    // given
    let expectation = AsyncExpectation("request sent", count: .never)
    Task { expectation.fulfill() }

    // when / then
    await withKnownIssue {
      await expectation.fulfillment(within: .seconds(5))
    } matching: { issue in
      issue.mentions("'request sent' must not happen, but it did within 5.0 s")
    }
  }

  @Test("It counts fulfilments from many tasks at once")
  func concurrentFulfilments() async {
    // given
    let expectation = AsyncExpectation("callbacks", count: .exactly(200))

    // when
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<200 { group.addTask { expectation.fulfill() } }
    }

    // then
    #expect(await expectation.fulfillment(within: .seconds(1)))
    #expect(expectation.fulfillmentCount == 200)
  }
}

@Suite("expectElement", .tags(.testSupport), .timeBudget(.seconds(10)))
struct ExpectElementTests {
  @Test("It returns the first element that matches")
  func returnsMatchingElement() async {
    // given
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    Task {
      for value in [1, 2, 3, 4] { continuation.yield(value) }
    }

    // when
    let element = await expectElement(of: stream, "an even number", within: .seconds(2)) {
      $0.isMultiple(of: 2)
    }

    // then
    #expect(element == 2)
  }

  @Test("It records an issue naming what it waited for when nothing arrives")
  func recordsWhenNothingArrives() async {
    // given
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    defer { continuation.finish() }

    // when / then
    await withKnownIssue {
      let element = await expectElement(
        of: stream, "the next save of the sync context", within: .milliseconds(20))
      #expect(element == nil)
    } matching: { issue in
      issue.mentions("Expected the next save of the sync context within 20 ms")
    }
  }
}
