import Foundation
import HTTPRequest

extension Endpoint {
  /// The HTTP header that names one attempt at a change: a request sent again with the same key
  /// (after its answer was lost, or after a restart) is applied at most once, and a repeat is
  /// answered with the first answer.
  public static let idempotencyKeyHeader = "Idempotency-Key"

  /// Whether the call changes what the backend holds: its answer then carries the
  /// `ServerVersion` its change produced, and it may carry an idempotency key.
  public var changesState: Bool {
    switch self {
    case .updateSelf, .requestConnection, .updateConnection, .createConversation,
      .renameConversation, .addMembers, .removeMembers, .postMessage, .deleteMessage:
      true
    case .getSelf, .getUsers, .getUser, .searchContacts, .getConnections, .getConversations,
      .getNotifications, .lastNotification, .signIn:
      false
    }
  }
}

extension Endpoint {
  /// The request that makes this call, naming `key` as its idempotency key when the call
  /// changes state; a call that changes nothing goes without one.
  public func request(idempotencyKey key: String) throws(HTTPRequestError) -> HTTPRequest {
    let plain = try request()
    guard changesState else { return plain }
    return try plain.adding(HTTPHeader(Self.idempotencyKeyHeader, key))
  }
}

extension ErrorLabel {
  /// An idempotency key came again with a different request.
  public static let idempotencyKeyReused: ErrorLabel = "idempotency-key-reused"
}
