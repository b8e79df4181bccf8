import HTTPRequest
import Seams

/// The one seam through which Courier talks to its backend: send a request, get the response.
///
/// A session does not throw for HTTP error statuses (a 404 is a response); it throws
/// ``TransportError`` when there is no response to give: the network failed, the request
/// expired, or the task was cancelled. ``TransportResponse/responseClass`` says what to do next.
public protocol TransportSession: Sendable {
  /// Sends `request` and returns the backend's response.
  ///
  /// - Parameters:
  ///   - request: The request to send.
  ///   - options: How long the request may take in all, and whether the session may retry a
  ///     temporary failure itself.
  /// - Throws: ``TransportError`` when there is no response.
  func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
}

extension TransportSession {
  /// Sends `request` with the default options: a 60-second expiry and no retries.
  public func send(_ request: HTTPRequest) async throws(TransportError) -> TransportResponse {
    try await send(request, options: SendOptions())
  }

  /// Sends `request` with `expiry` and no retries.
  public func send(_ request: HTTPRequest, expiry: Duration) async throws(TransportError)
    -> TransportResponse
  {
    try await send(request, options: SendOptions(expiry: expiry))
  }

  /// This session, letting at most `limit` requests through at once; the rest wait in order,
  /// and their wait counts towards their expiry.
  public func limited(to limit: Int, time: any TimeSource = SystemTimeSource()) -> LimitedTransport
  {
    LimitedTransport(self, limit: limit, time: time)
  }
}

/// How one send may go: its expiry, and whether the session may retry it.
public struct SendOptions: Sendable, Hashable {
  /// How long the request may take in all, waiting and retries included.
  public var expiry: Duration
  /// Whether the session may retry a temporary failure itself; only idempotent methods are.
  ///
  /// Off by default: the sync engine owns upstream retries, so a 503 is never retried by two
  /// layers. Downstream fetches (idempotent GETs) turn it on.
  public var retriesTemporaryFailures: Bool

  /// Creates options.
  public init(expiry: Duration = TransportDefaults.expiry, retriesTemporaryFailures: Bool = false) {
    self.expiry = expiry
    self.retriesTemporaryFailures = retriesTemporaryFailures
  }
}

/// The defaults every transport shares.
public enum TransportDefaults {
  /// How long a request may take before it expires, unless it says otherwise.
  public static let expiry: Duration = .seconds(60)
}
