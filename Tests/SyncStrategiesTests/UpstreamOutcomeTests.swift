import CourierAPI
import Foundation
import JSON
import SyncStrategies
import TestSupport
import Testing
import Transport

@Suite("UpstreamOutcome", .tags(.sync), .timeBudget(.seconds(5)))
struct UpstreamOutcomeTests {
  static let refusal = TransportResponse(
    status: 403, json: ["code": 403, "label": "bad-conn-update", "message": "no"])
  static let busy = TransportResponse(
    status: 503, json: ["code": 503, "label": "busy", "message": "later"],
    headers: ["Retry-After": "7"])

  @Test(
    "Every send result is classed, with the status, label and Retry-After kept as values",
    arguments: zip(
      [
        Result<TransportResponse, TransportError>.success(TransportResponse(status: 204)),
        .success(busy), .success(TransportResponse(status: 429)), .success(refusal),
        .success(TransportResponse(status: 201, body: Data("{\"trunc".utf8))),
        .failure(.network(.connectionLost)), .failure(.expired(after: .seconds(60))),
        .failure(.cancelled), .failure(.invalidRequest("bad base URL")),
      ],
      [
        "success", "temporary: 503 busy 7", "temporary: 429 - -",
        "permanent: 403 bad-conn-update -",
        "temporary: 201 - -", "temporary: network", "temporary: network", "temporary: network",
        "permanent: network",
      ]))
  func classes(_ result: Result<TransportResponse, TransportError>, _ expected: String) {
    // when
    let outcome = UpstreamOutcome(endpoint: .getSelf, result: result)

    // then
    #expect(Self.summary(outcome) == expected)
  }

  @Test("A success is decoded by its endpoint")
  func decodedSuccess() throws {
    // given
    let body = #"{"name": "Dinner"}"#
    let endpoint = Endpoint.renameConversation(id: UUID(1), ConversationRename(name: "Dinner"))

    // when
    let outcome = UpstreamOutcome(
      endpoint: endpoint, result: .success(TransportResponse(status: 200, body: Data(body.utf8))))

    // then
    guard case .success(let answer, _) = outcome else {
      Issue.record("expected a success, got \(outcome)")
      return
    }
    #expect(answer == .renamed(ConversationRename(name: "Dinner")))
  }

  @Test("A request held back before it went is a temporary failure, surely not applied")
  func notSent() {
    // when
    let failure = BackendFailure.notSent

    // then
    #expect(failure.responseClass == .temporary)
    #expect(!failure.wasSent)
    #expect(!failure.mayHaveBeenApplied)
    #expect("\(failure)".contains("not sent"))
  }

  @Test(
    "A send refused for want of credentials waits as unauthorized, surely not applied",
    arguments: [
      Result<TransportResponse, TransportError>.success(TransportResponse(status: 401)),
      .failure(.unauthenticated("no access token")),
    ])
  func unauthorized(_ result: Result<TransportResponse, TransportError>) {
    // when
    let outcome = UpstreamOutcome(endpoint: .getSelf, result: result)

    // then
    guard case .temporary(let failure) = outcome else {
      Issue.record("expected a temporary failure, got \(outcome)")
      return
    }
    #expect(failure.responseClass == .unauthorized)
    #expect(!failure.mayHaveBeenApplied)
  }

  @Test("A Retry-After given as an HTTP date is the wait until that date")
  func retryAfterDate() throws {
    // given: a 503 asking to come back a day from now
    let format = DateFormatter()
    format.locale = Locale(identifier: "en_US_POSIX")
    format.timeZone = TimeZone(identifier: "GMT")
    format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    let tomorrow = format.string(from: Date().addingTimeInterval(86_400))
    let response = TransportResponse(status: 503, headers: ["Retry-After": tomorrow])

    // when
    let outcome = UpstreamOutcome(endpoint: .getSelf, result: .success(response))

    // then
    guard case .temporary(let failure) = outcome, let wait = failure.retryAfter else {
      Issue.record("expected a temporary failure with a wait, got \(outcome)")
      return
    }
    #expect(wait > .seconds(86_000) && wait <= .seconds(86_400))
  }

  /// `class: status label retry-after`, or `class: network` for a failure without a response.
  static func summary(_ outcome: UpstreamOutcome) -> String {
    func describe(_ failure: BackendFailure) -> String {
      guard let status = failure.status else { return "network" }
      let retry = failure.retryAfter.map { "\($0.components.seconds)" } ?? "-"
      return "\(status) \(failure.label?.rawValue ?? "-") \(retry)"
    }
    switch outcome {
    case .success: return "success"
    case .temporary(let failure): return "temporary: \(describe(failure))"
    case .permanent(let failure): return "permanent: \(describe(failure))"
    }
  }
}
