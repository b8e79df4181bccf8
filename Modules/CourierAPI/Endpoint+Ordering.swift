import Foundation

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
      .getNotifications, .lastNotification:
      false
    }
  }
}

extension ErrorLabel {
  /// An idempotency key came again with a different request.
  public static let idempotencyKeyReused: ErrorLabel = "idempotency-key-reused"
}
