import Foundation
import JSON
import ParsingCore

/// A connection request between two users, as the backend sends it, validated field by field.
///
/// ```json
/// {"from": UUID, "to": UUID, "status": "pending", "conversation": UUID,
///  "last_update": "2026-11-21T10:00:00.000Z", "message": "Hi" | null}
/// ```
///
/// `message` may be absent or `null`; unknown keys are ignored; `from` and `to` must differ.
/// Parse with `ConnectionPayload.parse(data)`; a page with `Page<ConnectionPayload>.parse(data,
/// listKey: ConnectionPayload.pageKey)`.
public struct ConnectionPayload: PayloadConvertible, Hashable {
  /// The user who sent the request.
  public var from: UUID
  /// The user the request went to.
  public var to: UUID
  /// Where the request stands.
  public var status: ConnectionStatus
  /// The conversation the connection lives in.
  public var conversation: UUID
  /// When the connection last changed.
  public var lastUpdate: Date
  /// The note sent with the request, if any.
  public var message: String?

  /// The list key of a page of connections.
  public static let pageKey = "connections"

  /// Creates a connection payload.
  public init(
    from: UUID, to: UUID, status: ConnectionStatus, conversation: UUID, lastUpdate: Date,
    message: String? = nil
  ) {
    self.from = from
    self.to = to
    self.status = status
    self.conversation = conversation
    self.lastUpdate = lastUpdate
    self.message = message
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> ConnectionPayload? {
    let from = reader.uuid("from")
    let to = reader.uuid("to")
    let status = reader.oneOf("status", ConnectionStatus.self)
    let conversation = reader.uuid("conversation")
    let lastUpdate = reader.date("last_update")
    let message = reader.optionalString("message")
    if let from, let to, from == to {
      reader.record("to", .invalidValue, expected: "a user other than 'from'", found: to.jsonValue)
    }
    guard let from, let to, let status, let conversation, let lastUpdate, let message else {
      return nil
    }
    return ConnectionPayload(
      from: from, to: to, status: status, conversation: conversation, lastUpdate: lastUpdate,
      message: message)
  }

  /// The payload as the backend writes it, `message` as `null` when there is none.
  public var jsonValue: JSONValue {
    [
      "from": from.jsonValue, "to": to.jsonValue, "status": .string(status.rawValue),
      "conversation": conversation.jsonValue, "last_update": lastUpdate.jsonValue,
      "message": message.map(JSONValue.string) ?? .null,
    ]
  }
}
