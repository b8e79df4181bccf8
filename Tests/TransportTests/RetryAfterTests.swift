import Foundation
import TestSupport
import Testing
import Transport

@Suite("RetryAfter", .tags(.transport), .timeBudget(.seconds(5)))
struct RetryAfterTests {
  /// 2026-11-25 09:59:30 GMT, half a minute before the dates the tests give.
  static let now = Date(timeIntervalSince1970: 1_795_600_770)

  @Test(
    "A Retry-After reads as seconds or as a date in any HTTP form, and waits until then",
    arguments: zip(
      [
        "7", " 120 ", "Wed, 25 Nov 2026 10:00:00 GMT", "Wednesday, 25-Nov-26 10:00:00 GMT",
        "Wed Nov 25 10:00:00 2026", "Wed Nov  4 10:00:00 2026", "Tue, 24 Nov 2026 10:00:00 GMT",
        "Thu, 29 Feb 2024 00:00:00 GMT",
      ],
      [7, 120, 30, 30, 30, 0, 0, 0] as [Int64]))
  func reads(_ header: String, _ seconds: Int64) throws {
    // given
    let response = TransportResponse(status: 503, headers: ["Retry-After": header])

    // when
    let delay = try #require(response.retryAfter).delay(from: Self.now)

    // then
    #expect(delay == .seconds(seconds))
  }

  @Test(
    "A Retry-After that is neither whole seconds nor a real HTTP date is not read",
    arguments: [
      "", "soon", "-5", "+5", "1.5", "99999999999999999999", "Wed, 31 Nov 2026 10:00:00 GMT",
      "Wed, 25 Nov 2026 24:00:00 GMT", "Wed, 25 Nov 2026 10:00:00 CET",
      "Wed, 25 Nov 2026 10:0:00 GMT", "Wed, 25 Sma 2026 10:00:00 GMT",
      "Fri, 29 Feb 2030 10:00:00 GMT", "Wed, 25 Nov 26 10:00:00 GMT",
    ])
  func refuses(_ header: String) {
    // given
    let response = TransportResponse(status: 503, headers: ["Retry-After": header])

    // when
    let retryAfter = response.retryAfter

    // then
    #expect(retryAfter == nil)
  }

  @Test("A response without Retry-After asks for no wait")
  func absent() {
    // given
    let response = TransportResponse(status: 503, headers: ["Content-Type": "application/json"])

    // when
    let retryAfter = response.retryAfter

    // then
    #expect(retryAfter == nil)
  }
}
