import HTTPRequest
import Transport

/// A session that passes each request on after a pause of real time: the embedded backend made
/// as slow to answer as a distant one, or as a loaded machine makes it.
struct DelayedTransport: TransportSession {
  /// The session that answers.
  let base: any TransportSession
  /// How long each request waits before `base` gets it.
  let latency: Duration

  func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    do {
      try await Task.sleep(for: latency)
    } catch {
      throw .cancelled
    }
    return try await base.send(request, options: options)
  }
}
