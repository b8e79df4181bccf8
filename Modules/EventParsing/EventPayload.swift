import ConnectionParsing
import ConversationParsing
import Foundation
import JSON
import ParsingCore
import UserParsing

/// One change the backend reports in a notification.
///
/// Shapes, by `type`:
/// - `user.update`: `{"type", "user": {"id", optional "name", "accent_id", "handle"}}`
/// - `user.connection`: `{"type", "connection": <connection>}`
/// - `conversation.create`: `{"type", "conversation": UUID, "from": UUID, "time", "data": <conversation>}`
/// - `conversation.rename`: `{…, "data": {"name": String}}`
/// - `conversation.member-join`, `conversation.member-leave`: `{…, "data": {"user_ids": [UUID]}}`
/// - `conversation.message-add`: `{…, "data": <message>}`
///
/// Any other `type` is kept as ``unknown(type:raw:)``, not rejected, so newer backends do not
/// break older clients.
public enum EventPayload: PayloadConvertible, Hashable {
  /// A user's profile changed.
  case userUpdate(UserUpdatePayload)
  /// A connection was created or changed.
  case connection(ConnectionPayload)
  /// A conversation was created.
  case conversationCreate(ConversationEvent<ConversationPayload>)
  /// A conversation was renamed.
  case conversationRename(ConversationEvent<String>)
  /// Users joined a conversation.
  case memberJoin(ConversationEvent<[UUID]>)
  /// Users left a conversation.
  case memberLeave(ConversationEvent<[UUID]>)
  /// A message was added to a conversation.
  case messageAdd(ConversationEvent<MessagePayload>)
  /// An event type this client does not know, kept whole.
  case unknown(type: String, raw: JSONValue)
  /// `conversation.message-delete`: a message was deleted for everyone; carries its nonce.
  case messageDelete(ConversationEvent<UUID>)

  /// Reads the type, then the fields that type carries.
  public static func read(from reader: inout ObjectReader) -> EventPayload? {
    guard let type = reader.string("type", nonEmpty: true) else { return nil }
    switch type {
    case "user.update":
      return reader.payload("user", UserUpdatePayload.self).map(EventPayload.userUpdate)
    case "user.connection":
      return reader.payload("connection", ConnectionPayload.self).map(EventPayload.connection)
    case "conversation.create":
      return ConversationEvent.read(from: &reader) { $0.payload("data", ConversationPayload.self) }
        .map(EventPayload.conversationCreate)
    case "conversation.rename":
      return ConversationEvent.read(from: &reader) { reader in
        reader.object("data") { $0.string("name", nonEmpty: true) }
      }.map(EventPayload.conversationRename)
    case "conversation.member-join", "conversation.member-leave":
      let event = ConversationEvent.read(from: &reader) { reader in
        reader.object("data") { $0.uuids("user_ids") }
      }
      return event.map(
        type == "conversation.member-join" ? EventPayload.memberJoin : EventPayload.memberLeave)
    case "conversation.message-add":
      return ConversationEvent.read(from: &reader) { $0.payload("data", MessagePayload.self) }
        .map(EventPayload.messageAdd)
    case "conversation.message-delete":
      return ConversationEvent.read(from: &reader) { reader in
        reader.object("data") { $0.uuid("nonce") }
      }.map(EventPayload.messageDelete)
    default:
      return .unknown(type: type, raw: .object(reader.object))
    }
  }

  /// The event as the backend writes it.
  public var jsonValue: JSONValue {
    switch self {
    case .userUpdate(let user): ["type": "user.update", "user": user.jsonValue]
    case .connection(let connection):
      ["type": "user.connection", "connection": connection.jsonValue]
    case .conversationCreate(let event):
      event.jsonValue(type: "conversation.create") { $0.jsonValue }
    case .conversationRename(let event):
      event.jsonValue(type: "conversation.rename") { ["name": .string($0)] }
    case .memberJoin(let event):
      event.jsonValue(type: "conversation.member-join") {
        ["user_ids": .array($0.map(\.jsonValue))]
      }
    case .memberLeave(let event):
      event.jsonValue(type: "conversation.member-leave") {
        ["user_ids": .array($0.map(\.jsonValue))]
      }
    case .messageAdd(let event): event.jsonValue(type: "conversation.message-add") { $0.jsonValue }
    case .messageDelete(let event):
      event.jsonValue(type: "conversation.message-delete") { ["nonce": $0.jsonValue] }
    case .unknown(_, let raw): raw
    }
  }
}

/// The envelope every conversation event shares, around its type-specific `data`.
public struct ConversationEvent<Data: Sendable & Hashable>: Sendable, Hashable {
  /// The conversation the event happened in.
  public var conversation: UUID
  /// The user who caused it.
  public var from: UUID
  /// When it happened.
  public var time: Date
  /// What the event carries.
  public var data: Data

  /// Creates an event.
  public init(conversation: UUID, from: UUID, time: Date, data: Data) {
    self.conversation = conversation
    self.from = from
    self.time = time
    self.data = data
  }

  static func read(
    from reader: inout ObjectReader, data readData: (inout ObjectReader) -> Data?
  ) -> ConversationEvent? {
    let conversation = reader.uuid("conversation")
    let from = reader.uuid("from")
    let time = reader.date("time")
    let data = readData(&reader)
    guard let conversation, let from, let time, let data else { return nil }
    return ConversationEvent(conversation: conversation, from: from, time: time, data: data)
  }

  func jsonValue(type: String, data encode: (Data) -> JSONValue) -> JSONValue {
    [
      "type": .string(type), "conversation": conversation.jsonValue, "from": from.jsonValue,
      "time": time.jsonValue, "data": encode(data),
    ]
  }
}
