/// Why a send produced no response.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The network failed before a response arrived.
  case network(NetworkFailure)
  /// The request took longer than its expiry, queueing and retries included.
  case expired(after: Duration)
  /// The sending task was cancelled.
  case cancelled
  /// A response arrived whose body is not the JSON it should be.
  case malformedBody(status: Int, reason: String)
  /// The request could not be turned into a URL request (for instance a bad base URL).
  case invalidRequest(String)
  /// There is no token the backend accepts: the token provider gave none, or the backend refused
  /// the one sent and the provider could not give a new one. Why, in the provider's words.
  case unauthenticated(String)

  /// What the caller should do about it.
  public var responseClass: ResponseClass {
    switch self {
    case .network: .temporary
    case .expired: .expired
    case .cancelled, .malformedBody, .invalidRequest: .permanent
    case .unauthenticated: .unauthorized
    }
  }

  /// Names the failure.
  public var description: String {
    switch self {
    case .network(let failure): "network failure: \(failure)"
    case .expired(let expiry): "expired after \(expiry)"
    case .cancelled: "cancelled"
    case .malformedBody(let status, let reason): "malformed body in a \(status) response: \(reason)"
    case .invalidRequest(let reason): "invalid request: \(reason)"
    case .unauthenticated(let reason): "not signed in: \(reason)"
    }
  }
}

/// The ways a network can fail a request.
public enum NetworkFailure: Sendable, Hashable, CustomStringConvertible {
  /// The connection dropped while the request was under way; the backend may have acted on it.
  case connectionLost
  /// The backend did not answer in time.
  case timedOut
  /// The device is offline.
  case offline
  /// The host could not be reached.
  case cannotConnect
  /// Another failure, by its `URLError` code.
  case other(code: Int)

  /// The failure's name.
  public var description: String {
    switch self {
    case .connectionLost: "connection lost"
    case .timedOut: "timed out"
    case .offline: "offline"
    case .cannotConnect: "cannot connect"
    case .other(let code): "URL error \(code)"
    }
  }
}
