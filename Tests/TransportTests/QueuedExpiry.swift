import FakeBackend
import Foundation
import HTTPRequest
import Seams
import TestSupport
import Transport

/// How a request that waited for a slot past its expiry ended, on a transport that sends one
/// request at a time.
struct QueuedExpiry {
  /// How the queued send ended.
  let outcome: Result<TransportResponse, any Error>
  /// The transport's load right after the expiry, before the first request is let go.
  let loadAfterExpiry: (inFlight: Int, queued: Int)
  /// The first request's status once it was let go.
  let firstStatus: Int?

  /// Parks a `GET /self` on `transport` (whose one slot it takes), queues a user lookup with
  /// `expiry`, waits until `sleepers` sleep on `clock`, and moves the clock past the expiry.
  static func run(
    on transport: some TransportSession, load: () -> (inFlight: Int, queued: Int),
    fake: FakeBackend, clock: ManualTimeSource, expiry: Duration, sleepers: Int
  ) async -> QueuedExpiry {
    fake.addFault(.once(RequestMatcher("GET", "/self"), .park))
    let first = Task { try await transport.send(try HTTPRequest(.get, "/self")) }
    await fake.waitForParkedRequests(1)
    let queued = Task {
      try await transport.send(try HTTPRequest(.get, "/users/\(UUID(1))"), expiry: expiry)
    }
    await clock.waitForSleepers(sleepers)
    clock.advance(by: expiry)
    let outcome = await queued.result
    let load = load()
    fake.releaseAllParkedRequests()
    return QueuedExpiry(
      outcome: outcome, loadAfterExpiry: load, firstStatus: try? await first.value.status)
  }
}
