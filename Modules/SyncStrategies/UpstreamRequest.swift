import CourierAPI
import HTTPRequest
import Models

/// The tracker's handle for one request in flight; pass it back with the request's outcome.
public struct RequestToken: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The token's number, unique within one tracker.
  public let value: Int

  /// Orders tokens by the order the requests were chosen.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }

  /// Reads as `#3`.
  public var description: String { "#\(value)" }
}

/// A request the tracker chose, with what it pushes.
public struct UpstreamRequest: Sendable, CustomStringConvertible {
  /// The tracker's handle for this request; pass it back with the outcome.
  public let token: RequestToken
  /// The call the request makes.
  public let endpoint: Endpoint
  /// The request to send.
  public let request: HTTPRequest
  /// The change it pushes, with exactly the keys it carries.
  public let item: SyncQueueSnapshot.Item

  /// The idempotency key the request goes with, if it changes state: the same call sent again
  /// after a lost answer goes with the same key.
  public var idempotencyKey: String? {
    request.headers.first { $0.name == Endpoint.idempotencyKeyHeader }?.value
  }

  /// Reads as the request line.
  public var description: String { "\(request)" }
}

/// What the tracker did with a request's outcome.
public enum UpstreamCompletion: Sendable, Equatable {
  /// The change (or the part the request carried) is settled.
  case settled(ObjectReference)
  /// The change stays pending and is tried again after `retryIn`.
  case retrying(ObjectReference, retryIn: Duration, BackendFailure)
  /// The backend refused the change for good; it waits for the app.
  case failed(ObjectReference, PushFailure)
  /// The change was given up and its keys went back to the backend's values.
  case reverted(ObjectReference, reason: String)
  /// The token was not one of the requests in flight.
  case unknownToken(RequestToken)
}
