import CourierAPI
import Foundation
import ParsingCore
import Transport

/// Why a request did not succeed, with everything the backend or the network said about it.
public struct BackendFailure: Sendable, Hashable, CustomStringConvertible {
  /// Whether trying again may work.
  public let responseClass: ResponseClass
  /// The HTTP status, if a response came.
  public let status: Int?
  /// The backend's error answer, if it gave a readable one.
  public let error: APIError?
  /// How long the backend asked to wait before trying again (`Retry-After`).
  public let retryAfter: Duration?
  /// What the transport threw, if no response came.
  public let transportError: TransportError?
  /// Why a successful status came with an unreadable body.
  public let unreadableBody: ResponseError?
  /// Whether the request left the device at all: see ``notSent``.
  public let wasSent: Bool

  /// Creates a failure.
  public init(
    responseClass: ResponseClass, status: Int? = nil, error: APIError? = nil,
    retryAfter: Duration? = nil, transportError: TransportError? = nil,
    unreadableBody: ResponseError? = nil, wasSent: Bool = true
  ) {
    self.responseClass = responseClass
    self.status = status
    self.error = error
    self.retryAfter = retryAfter
    self.transportError = transportError
    self.unreadableBody = unreadableBody
    self.wasSent = wasSent
  }

  /// A request held back before it went, because the store refused to record it first.
  ///
  /// The save that records what a request carries as possibly applied comes before it goes;
  /// sent without it, an app killed before its next save would forget it went. It is taken back
  /// and tried again after a backoff, as a temporary failure.
  public static let notSent = BackendFailure(responseClass: .temporary, wasSent: false)

  /// Whether the backend may have carried the request out, so its values may be there.
  ///
  /// Only a request refused for being too many or for want of credentials, or one that never
  /// left the device, surely was not; a lost or unreadable answer, a timeout or a server error
  /// may hide an applied change.
  public var mayHaveBeenApplied: Bool {
    guard wasSent else { return false }
    switch transportError {
    case .network(.offline)?, .network(.cannotConnect)?, .invalidRequest?: return false
    // A 401, or a send without a token (`.unauthenticated`), reached no one who acted on it.
    default: return status != 429 && responseClass != .unauthorized
    }
  }

  /// The backend's label for the error, such as `not-found`.
  public var label: ErrorLabel? { error?.label }

  /// Reads as `status 403 (access-denied): self is not a member` or `network failure: offline`.
  public var description: String {
    guard wasSent else { return "not sent: the store refused to record it first" }
    if let transportError { return "\(transportError)" }
    if let unreadableBody { return "\(unreadableBody)" }
    var text = "status \(status.map(String.init) ?? "?")"
    if let error { text += " (\(error.label)): \(error.message)" }
    if let retryAfter { text += ", retry after \(retryAfter)" }
    return text
  }
}

/// How a request ended, as the tracker needs to know it.
public enum UpstreamOutcome: Sendable {
  /// The backend did it and answered this; `version` is the server's version once it had, when
  /// the backend says it (`ServerVersion.header`).
  case success(EndpointResponse, version: ServerVersion? = nil)
  /// It may work later (a 5xx, a 429, a network failure, a lost or unreadable answer, or a
  /// 401 that waits for the app to sign in again); the change stays pending and backs off.
  case temporary(BackendFailure)
  /// It will not work as it is (a 4xx); the strategy decides what that means.
  case permanent(BackendFailure)

  /// The outcome of calling `endpoint`: its response, classed and decoded, or its error; a
  /// `Retry-After` date is counted from `now`.
  public init(
    endpoint: Endpoint, result: Result<TransportResponse, TransportError>, now: Date = Date()
  ) {
    switch result {
    case .success(let response):
      let retryAfter = response.retryAfter?.delay(from: now)
      switch response.responseClass {
      case .success:
        switch endpoint.decodeResponse(status: response.status, body: response.body) {
        case .success(let answer):
          self = .success(answer, version: response.serverVersion)
        case .failure(let unreadable):
          // The backend acted but its answer was lost in transit: sending again is safe.
          self = .temporary(
            BackendFailure(
              responseClass: .temporary, status: response.status, unreadableBody: unreadable))
        }
      case .temporary, .expired:
        self = .temporary(Self.failure(response, .temporary, retryAfter: retryAfter))
      case .permanent:
        self = .permanent(Self.failure(response, .permanent, retryAfter: retryAfter))
      case .unauthorized:
        // The backend did not know who asked, which says nothing of the change: it waits for
        // the app to sign in again.
        self = .temporary(Self.failure(response, .unauthorized, retryAfter: retryAfter))
      }
    case .failure(let error):
      switch error {
      case .invalidRequest:
        self = .permanent(BackendFailure(responseClass: .permanent, transportError: error))
      case .network, .expired, .cancelled, .malformedBody, .unauthenticated:
        self = .temporary(
          BackendFailure(responseClass: error.responseClass, transportError: error))
      }
    }
  }

  /// Whether the call ended here, applied or refused, so that it never goes again as it went.
  var isFinal: Bool {
    if case .temporary = self { false } else { true }
  }

  private static func failure(
    _ response: TransportResponse, _ responseClass: ResponseClass, retryAfter: Duration?
  ) -> BackendFailure {
    BackendFailure(
      responseClass: responseClass, status: response.status,
      error: try? APIError.parse(response.body), retryAfter: retryAfter)
  }
}
