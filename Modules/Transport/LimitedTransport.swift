import HTTPRequest
import Seams

/// A session that lets at most `limit` requests of another session through at once; the rest
/// wait in order, and the time they wait counts towards their expiry.
///
/// `URLSessionTransport` limits itself; wrap any other session, such as the fake backend's, to
/// get the same behaviour: `fake.transport.limited(to: 1)`.
public struct LimitedTransport: TransportSession {
  /// The session requests go to once they have a slot.
  public let base: any TransportSession
  private let limiter: ConcurrencyLimiter
  private let time: any TimeSource

  /// Wraps `base`, letting `limit` requests through at once, waits measured on `time`.
  public init(_ base: any TransportSession, limit: Int, time: any TimeSource = SystemTimeSource()) {
    self.base = base
    self.limiter = ConcurrencyLimiter(limit: limit)
    self.time = time
  }

  /// How many requests hold a slot, and how many wait for one.
  public var load: (inFlight: Int, queued: Int) {
    let counts = limiter.counts
    return (counts.running, counts.waiting)
  }

  /// Waits for a slot, then sends `request` with what is left of its expiry.
  public func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    let start = time.now()
    let acquired: Bool
    do {
      acquired = try await limiter.acquire(waitingAtMost: options.expiry, on: time)
    } catch {
      throw .cancelled
    }
    guard acquired else { throw .expired(after: options.expiry) }
    defer { limiter.release() }
    var remaining = options
    remaining.expiry = options.expiry - (time.now() - start)
    guard remaining.expiry > .zero else { throw .expired(after: options.expiry) }
    return try await base.send(request, options: remaining)
  }
}
