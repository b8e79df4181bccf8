import FakeBackend
import TestSupport
import Testing
import Transport

@Suite("Fault", .tags(.transport), .timeBudget(.seconds(5)))
struct FaultTests {
  @Test(
    "Faults and matchers name themselves in the journal",
    arguments: zip(
      [
        Fault.status(503), .status(429, retryAfter: 7), .network(.timedOut), .delay(.seconds(2)),
        .park,
        .loseResponse, .malformedBody,
      ],
      [
        "status 503", "status 429, Retry-After 7", "network: timed out", "delay 2.0 seconds",
        "park",
        "lose the response", "malformed body",
      ]))
  func descriptions(_ fault: Fault, _ expected: String) {
    // when
    let text = fault.description

    // then
    #expect(text == expected)
  }

  @Test(
    "A matcher reads as its method and path pattern",
    arguments: zip(
      [RequestMatcher("post", "/conversations/*/messages"), RequestMatcher(nil, "/self"), .any],
      ["POST /conversations/*/messages", "* /self", "* /**"]))
  func matchers(_ matcher: RequestMatcher, _ expected: String) {
    // when
    let text = matcher.description

    // then
    #expect(text == expected)
  }
}
