import TestSupport
import Testing
import Transport

@Suite("ResponseClass", .tags(.transport), .timeBudget(.seconds(5)))
struct ResponseClassTests {
  @Test(
    "Statuses are classed as success, temporary, permanent or unauthorized",
    arguments: zip(
      [200, 201, 204, 299, 408, 429, 500, 503, 599, 400, 401, 403, 404, 409, 302],
      [
        ResponseClass.success, .success, .success, .success, .temporary, .temporary, .temporary,
        .temporary, .temporary, .permanent, .unauthorized, .permanent, .permanent, .permanent,
        .permanent,
      ]))
  func statuses(_ status: Int, _ expected: ResponseClass) {
    // when
    let responseClass = TransportResponse(status: status).responseClass

    // then
    #expect(responseClass == expected)
  }

  @Test(
    "Failures without a response are classed by what can be done about them",
    arguments: zip(
      [
        TransportError.network(.connectionLost), .network(.offline), .expired(after: .seconds(1)),
        .cancelled, .malformedBody(status: 200, reason: "x"), .invalidRequest("x"),
        .unauthenticated("x"),
      ],
      [
        ResponseClass.temporary, .temporary, .expired, .permanent, .permanent, .permanent,
        .unauthorized,
      ]))
  func failures(_ error: TransportError, _ expected: ResponseClass) {
    // when
    let responseClass = error.responseClass

    // then
    #expect(responseClass == expected)
  }
}

@Suite("RetryPolicy", .tags(.transport), .timeBudget(.seconds(5)))
struct RetryPolicyTests {
  @Test(
    "Waits double from the base delay up to the cap",
    arguments: zip(
      [1, 2, 3, 4, 10],
      [Duration.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8)]))
  func doubling(_ attempt: Int, _ expected: Duration) {
    // given
    let policy = RetryPolicy(baseDelay: .milliseconds(500), maxDelay: .seconds(8), jitter: 0.2)

    // when
    let delay = policy.delay(afterAttempt: attempt, unit: 0.5, retryAfter: nil)

    // then
    #expect(delay == expected)
  }

  @Test("Jitter stays within its fraction either way", arguments: [0.0, 0.25, 0.999])
  func jitterBounds(_ unit: Double) {
    // given
    let policy = RetryPolicy(baseDelay: .seconds(1), jitter: 0.2)

    // when
    let delay = policy.delay(afterAttempt: 1, unit: unit, retryAfter: nil)

    // then
    #expect(delay >= .milliseconds(800))
    #expect(delay <= .milliseconds(1200))
  }

  @Test("A Retry-After longer than the backoff is honoured, a shorter one does not shorten it")
  func retryAfter() {
    // given
    let policy = RetryPolicy(baseDelay: .seconds(1), jitter: 0)

    // when
    let longer = policy.delay(afterAttempt: 1, unit: 0.5, retryAfter: .seconds(5))
    let shorter = policy.delay(afterAttempt: 1, unit: 0.5, retryAfter: .milliseconds(10))

    // then
    #expect(longer == .seconds(5))
    #expect(shorter == .seconds(1))
  }
}
