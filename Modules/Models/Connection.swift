import Foundation

/// A connection request between the self user and another user, identified by the other user:
/// there is at most one connection per pair.
public struct Connection: ModelObject {
  /// The keys of a connection that can change.
  public enum Key: String, Sendable, DeclarationOrdered {
    /// ``Connection/status``.
    case status
    /// ``Connection/conversationID``.
    case conversationID
    /// ``Connection/lastUpdate``.
    case lastUpdate
    /// ``Connection/message``.
    case message
  }

  /// The connection's id: the other user's id, ``to``.
  public var id: UUID { to }
  /// The user on this side, usually the self user.
  public let from: UUID
  /// The user on the other side.
  public let to: UUID
  /// Where the request stands.
  public var status: Status
  /// The one-to-one conversation that belongs to the connection, once the backend made it.
  public var conversationID: UUID?
  /// When the status last changed.
  public var lastUpdate: Date
  /// The note sent with the request, if any.
  public var message: String?

  /// Creates a connection.
  public init(
    from: UUID, to: UUID, status: Status, conversationID: UUID? = nil, lastUpdate: Date,
    message: String? = nil
  ) {
    self.from = from
    self.to = to
    self.status = status
    self.conversationID = conversationID
    self.lastUpdate = lastUpdate
    self.message = message
  }

  /// The connection's conversation, once the backend made it.
  package static let conversation = Relationship<Connection>(
    "conversation", to: Conversation.self
  ) { $0.conversationID.map { [$0] } ?? [] }

  /// A connection's name, fields, relationship and rules: it may not join a user to themself,
  /// its status may only move along ``Status/allowsTransition(to:)``, and it is never deleted
  /// (the backend cancels or blocks it instead).
  public static let schema = EntitySchema<Connection>(
    name: .connection,
    field: { key in
      switch key {
      case .status: Field(get: { $0.status }, set: { $0.status = $1 })
      case .conversationID: Field(get: { $0.conversationID }, set: { $0.conversationID = $1 })
      case .lastUpdate: Field(get: { $0.lastUpdate }, set: { $0.lastUpdate = $1 })
      case .message: Field(get: { $0.message }, set: { $0.message = $1 })
      }
    },
    relationships: [conversation],
    violations: { connection, previous, _ in
      var rules: [ValidationRule] = []
      if connection.from == connection.to { rules.append(.connectionToSelf) }
      if let previous, !previous.status.allowsTransition(to: connection.status) {
        rules.append(.statusTransition(from: previous.status, to: connection.status))
      }
      return rules
    },
    deletionViolations: { _, _ in
      [.deletionNotSynchronisable(.connection, reason: "cancel or block it instead")]
    })
}

extension EntityName {
  /// ``Connection``.
  public static let connection: EntityName = "Connection"
}
