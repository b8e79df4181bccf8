import HTTPRequest
import Transport

/// A transport that hands requests straight to a ``FakeBackend``, in-process: what most tests
/// send through.
public struct FakeTransport: TransportSession {
  /// The fake it serves.
  public let backend: FakeBackend

  /// Serves `backend`.
  public init(backend: FakeBackend) {
    self.backend = backend
  }

  /// Hands `request` to the fake as it would arrive over HTTP.
  ///
  /// The fake never retries: it answers each request once, as the server would.
  public func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    if Task.isCancelled { throw .cancelled }
    let outcome = await backend.handle(FakeRequest(request), expiry: options.expiry)
    return try outcome.get()
  }
}
