import Foundation
import TestSupport
import Testing
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("TransportError", .tags(.transport), .timeBudget(.seconds(5)))
struct TransportErrorTests {
  @Test(
    "Each failure names itself for logs and transcripts",
    arguments: zip(
      [
        TransportError.network(.connectionLost), .network(.other(code: -1001)),
        .expired(after: .seconds(60)),
        .cancelled, .malformedBody(status: 200, reason: "truncated"),
        .invalidRequest("bad base URL"), .unauthenticated("no access token"),
      ],
      [
        "network failure: connection lost", "network failure: URL error -1001",
        "expired after 60.0 seconds",
        "cancelled", "malformed body in a 200 response: truncated", "invalid request: bad base URL",
        "not signed in: no access token",
      ]))
  func descriptions(_ error: TransportError, _ expected: String) {
    // when
    let text = error.description

    // then
    #expect(text == expected)
  }

  @Test(
    "URL error codes map to network failures and back",
    arguments: [NetworkFailure.connectionLost, .timedOut, .offline, .cannotConnect])
  func urlErrorRoundTrip(_ failure: NetworkFailure) {
    // when
    let code = failure.urlErrorCode

    // then
    #expect(NetworkFailure(code) == failure)
  }
}
