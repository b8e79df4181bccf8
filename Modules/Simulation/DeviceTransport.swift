import CourierAPI
import Foundation
import HTTPRequest
import JSON
import Seams
import Transport

/// A defect planted in a device's link, to show that the simulation's checks catch what it
/// breaks.
package enum DeviceFlaw: Sendable, Hashable {
  /// The link drops every request's idempotency key, so a resend is applied again.
  case forgetsIdempotencyKeys
  /// The link answers every read of notifications with an empty page: news never arrive.
  case hidesNews
  /// The link reads the whole stream of notifications at every read and hands it newest
  /// first: old news are applied again, over newer ones.
  case replaysNewsBackwards
  /// The first read of notifications that goes on from a cursor is let through; every later
  /// one reads the whole stream and hands it newest first, so a name the client showed from
  /// that first read goes back to an older one.
  case replaysNewsBackwardsAfterOneRead
  /// Every read of notifications after a first one is answered with the stream's first
  /// notification alone, as a backend that lost the client's cursor would: the cursor moves back.
  case rewindsCursor
}

/// What sets one simulated device apart on the wire: the bearer token it signed in with, and
/// whether its own network is up.
final class DeviceLink: Sendable {
  /// The token every request carries, or `nil` to act for the backend's self user.
  let token: String?
  /// The defect planted in the link, if any.
  let flaw: DeviceFlaw?
  private let offline = Locked(false)
  private let cursors = Locked<[UUID]>([])
  /// How many reads of notifications from a cursor went through the link.
  private let readsOn = Locked(0)

  /// Creates a link for a device signed in with `token`, with `flaw` planted in it.
  init(token: String? = nil, flaw: DeviceFlaw? = nil) {
    self.token = token
    self.flaw = flaw
  }

  /// Notes where the device's notification cursor got to after a page of news.
  func noteCursor(_ id: UUID) {
    cursors.withLock { $0.append(id) }
  }

  /// Counts a read of notifications from a cursor; how many there were before it.
  func countReadOn() -> Int {
    readsOn.withLock { count in
      defer { count += 1 }
      return count
    }
  }

  /// Where the cursor got to, page by page, since the last time this was asked.
  func takeCursors() -> [UUID] {
    cursors.withLock { cursors in
      defer { cursors = [] }
      return cursors
    }
  }

  /// Whether the device's network is down: its requests fail at once.
  var isOffline: Bool {
    get { offline.withLock { $0 } }
    set { offline.withLock { $0 = newValue } }
  }
}

/// The transport as one device sees it: each request carries its token, and none leaves while
/// its network is down.
struct DeviceTransport: TransportSession {
  let transport: any TransportSession
  let link: DeviceLink

  func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    guard !link.isOffline else { throw .network(.offline) }
    let readsNews = request.method == .get && request.path.encoded == "/notifications"
    if link.flaw == .hidesNews, readsNews {
      return TransportResponse(status: 200, json: ["notifications": [], "has_more": false])
    }
    let readsOn = readsNews && request.query.contains { $0.name == "since" }
    let earlierReadsOn = readsOn ? link.countReadOn() : 0
    let replaysBackwards =
      (link.flaw == .replaysNewsBackwards && readsNews)
      || (link.flaw == .replaysNewsBackwardsAfterOneRead && readsOn && earlierReadsOn > 0)
    let rewinds = link.flaw == .rewindsCursor && readsOn
    var query = request.query
    if replaysBackwards || rewinds { query.removeAll { $0.name == "since" } }
    if rewinds {
      query.removeAll { $0.name == "size" }
      query.append(QueryItem("size", "1"))
    }
    var headers = request.headers
    if link.flaw == .forgetsIdempotencyKeys {
      headers.removeAll { $0.name == Endpoint.idempotencyKeyHeader }
    }
    if let token = link.token { headers.append(HTTPHeader("Authorization", "Bearer \(token)")) }
    let signed: HTTPRequest
    do {
      signed = try HTTPRequest(
        request.method, request.path, query: query, headers: headers, body: request.body)
    } catch {
      throw .invalidRequest("\(error)")
    }
    let response = try await transport.send(signed, options: options)
    if replaysBackwards {
      return Self.rewrite(response) { page in
        if case .array(let notifications)? = page["notifications"] {
          page["notifications"] = .array(notifications.reversed())
        }
      }
    }
    if rewinds { return Self.rewrite(response) { $0["has_more"] = false } }
    return response
  }

  /// `response` with its page of notifications changed by `change`.
  private static func rewrite(
    _ response: TransportResponse, _ change: (inout [String: JSONValue]) -> Void
  ) -> TransportResponse {
    guard case .object(var page)? = try? JSONParser.parse(response.body) else { return response }
    change(&page)
    return TransportResponse(status: response.status, json: .object(page))
  }
}
