import FakeBackend
import TestSupport
import Testing
import Transport

@Suite("FaultRule, written as text")
struct FaultRuleParsingTests {
  @Test(
    "It reads every fault kind and count",
    arguments: [
      (
        "POST /conversations/*/messages: lose-response once",
        FaultRule.once(RequestMatcher("POST", "/conversations/*/messages"), .loseResponse)
      ),
      ("* /**: status 503 always", .always(RequestMatcher(nil, "/**"), .status(503))),
      (
        "PUT /self: status 429 retry-after 2 3 times",
        .times(3, RequestMatcher("PUT", "/self"), .status(429, retryAfter: 2))
      ),
      ("GET /self: network timed-out", .once(RequestMatcher("GET", "/self"), .network(.timedOut))),
      ("GET /self: delay 500ms", .once(RequestMatcher("GET", "/self"), .delay(.milliseconds(500)))),
      (
        "GET /self: delay 1.5s", .once(RequestMatcher("GET", "/self"), .delay(.milliseconds(1_500)))
      ),
      (
        "DELETE /conversations/*/members: hold-answer",
        .once(RequestMatcher("DELETE", "/conversations/*/members"), .holdAnswer)
      ),
      (
        "GET /users: malformed-body 2 times",
        .times(2, RequestMatcher("GET", "/users"), .malformedBody)
      ),
      ("POST /connections: park", .once(RequestMatcher("POST", "/connections"), .park)),
      (
        "POST /conversations/*/messages: hold-answer once after 2",
        FaultRule(
          RequestMatcher("POST", "/conversations/*/messages"), steps: [nil, nil, .holdAnswer])
      ),
      (
        "* /**: status 503 always after 1",
        FaultRule(RequestMatcher(nil, "/**"), steps: [nil, .status(503)], repeatsLastStep: true)
      ),
    ])
  func reads(text: String, expected: FaultRule) throws {
    // when
    let rule = try FaultRule(parsing: text)

    // then
    #expect(rule == expected)
  }

  @Test(
    "It refuses a rule it cannot read, naming the part that is wrong",
    arguments: [
      ("POST /connections", "is not a fault rule"),
      ("P0ST /connections: park", "is not a method"),
      ("POST connections: park", "is not a path"),
      ("POST /connections: explode", "is not a fault"),
      ("POST /connections: status 999", "is not a fault"),
      ("POST /connections: park 0 times", "is not a count"),
      ("POST /connections: park once after none", "is not a number of requests"),
    ])
  func refuses(text: String, message: String) {
    // when
    let error = #expect(throws: FaultRuleParseError.self) { try FaultRule(parsing: text) }

    // then
    #expect(error?.description.contains(message) == true)
  }
}
