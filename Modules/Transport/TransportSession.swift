import HTTPRequest

/// The one seam through which Courier talks to its backend: send a request, get the response.
///
/// A session does not throw for HTTP error statuses (a 404 is a response); it throws
/// ``TransportError`` when there is no response to give: the network failed, the request
/// expired, or the task was cancelled. ``TransportResponse/responseClass`` says what to do next.
public protocol TransportSession: Sendable {
  /// Sends `request` and returns the backend's response.
  ///
  /// - Parameter expiry: How long the request may take in all, queueing and retries included;
  ///   past it the send throws ``TransportError/expired(after:)``.
  /// - Throws: ``TransportError`` when there is no response.
  func send(_ request: HTTPRequest, expiry: Duration) async throws(TransportError)
    -> TransportResponse
}

extension TransportSession {
  /// Sends `request` with the default expiry of 60 seconds.
  public func send(_ request: HTTPRequest) async throws(TransportError) -> TransportResponse {
    try await send(request, expiry: TransportDefaults.expiry)
  }
}

/// The defaults every transport shares.
public enum TransportDefaults {
  /// How long a request may take before it expires, unless it says otherwise.
  public static let expiry: Duration = .seconds(60)
}
