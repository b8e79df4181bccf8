import ConnectionParsing
import Foundation
import JSON
import ParsingCore

/// The body of `PUT /self`: the profile fields to change, each absent when unchanged.
///
/// ```json
/// {"name": "Ada", "accent_id": 3, "handle": "ada"}
/// ```
///
/// A `handle` of `null` removes the handle.
public struct SelfUpdate: PayloadConvertible, Hashable {
  /// What happens to the handle.
  public enum HandleChange: Sendable, Hashable {
    /// The handle becomes this one.
    case set(String)
    /// The user no longer has a handle.
    case remove
  }

  /// The new display name; never blank.
  public var name: String?
  /// The new accent colour.
  public var accentID: Int?
  /// The change of handle, or `nil` to leave it.
  public var handle: HandleChange?

  /// Creates an update of the given fields.
  public init(name: String? = nil, accentID: Int? = nil, handle: HandleChange? = nil) {
    self.name = name
    self.accentID = accentID
    self.handle = handle
  }

  /// Whether the update changes nothing.
  public var isEmpty: Bool { name == nil && accentID == nil && handle == nil }

  /// Reads the fields present, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> SelfUpdate? {
    let name = reader.optionalNonBlank("name")
    let accent = reader.optionalInteger("accent_id")
    var handle: HandleChange??
    switch reader.object["handle"] {
    case nil: handle = .some(nil)
    case .null?: handle = .some(.remove)
    case .string(let text)?: handle = .some(.set(text))
    case let value?:
      reader.record("handle", .wrongType, expected: "string or null", found: value)
      handle = nil
    }
    guard let name, let accent, let handle else { return nil }
    return SelfUpdate(name: name, accentID: accent, handle: handle)
  }

  /// The fields present, as the backend reads them.
  public var jsonValue: JSONValue {
    var body: [String: JSONValue] = [:]
    if let name { body["name"] = .string(name) }
    if let accentID { body["accent_id"] = .integer(accentID) }
    switch handle {
    case .set(let text)?: body["handle"] = .string(text)
    case .remove?: body["handle"] = .null
    case nil: break
    }
    return .object(body)
  }
}

/// The body of `POST /connections`: a request to connect with `user`.
public struct ConnectionRequest: PayloadConvertible, Hashable {
  /// The user to connect with.
  public var user: UUID
  /// The other user's name, as the requester knows it.
  public var name: String
  /// A note sent with the request.
  public var message: String?

  /// Creates a request.
  public init(user: UUID, name: String, message: String? = nil) {
    self.user = user
    self.name = name
    self.message = message
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> ConnectionRequest? {
    let user = reader.uuid("user")
    let name = reader.string("name")
    let message = reader.optionalString("message")
    guard let user, let name, let message else { return nil }
    return ConnectionRequest(user: user, name: name, message: message)
  }

  /// The request as the backend reads it.
  public var jsonValue: JSONValue {
    var body: [String: JSONValue] = ["user": user.jsonValue, "name": .string(name)]
    if let message { body["message"] = .string(message) }
    return .object(body)
  }
}

/// The body of `PUT /connections/{user}`: the status the self user's side moves to.
public struct ConnectionUpdate: PayloadConvertible, Hashable {
  /// The new status.
  public var status: ConnectionStatus

  /// Creates an update to `status`.
  public init(status: ConnectionStatus) {
    self.status = status
  }

  /// Reads the status, recording it if bad.
  public static func read(from reader: inout ObjectReader) -> ConnectionUpdate? {
    reader.oneOf("status", ConnectionStatus.self).map(ConnectionUpdate.init)
  }

  /// The update as the backend reads it.
  public var jsonValue: JSONValue { ["status": .string(status.rawValue)] }
}

/// The body of `POST /conversations`: a new group with the self user and `users`.
public struct NewConversation: PayloadConvertible, Hashable {
  /// The id the client chose, so the group keeps its identity; the backend picks one if absent.
  public var id: UUID?
  /// The group's name; never blank when present.
  public var name: String?
  /// The members besides the self user.
  public var users: [UUID]

  /// Creates a new group.
  public init(id: UUID?, name: String?, users: [UUID]) {
    self.id = id
    self.name = name
    self.users = users
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> NewConversation? {
    let id = reader.optionalUUID("id")
    let name = reader.optionalNonBlank("name")
    let users = reader.object["users"] == nil ? [] : reader.uuids("users")
    guard let id, let name, let users else { return nil }
    return NewConversation(id: id, name: name, users: users)
  }

  /// The group as the backend reads it.
  public var jsonValue: JSONValue {
    var body: [String: JSONValue] = ["users": .array(users.map(\.jsonValue))]
    if let id { body["id"] = id.jsonValue }
    if let name { body["name"] = .string(name) }
    return .object(body)
  }
}

/// The body of `PUT /conversations/{id}`: the group's new name.
public struct ConversationRename: PayloadConvertible, Hashable {
  /// The new name; never blank.
  public var name: String

  /// Creates a rename to `name`.
  public init(name: String) {
    self.name = name
  }

  /// Reads the name, recording it if bad.
  public static func read(from reader: inout ObjectReader) -> ConversationRename? {
    reader.nonBlank("name").map(ConversationRename.init)
  }

  /// The rename as the backend reads and answers it.
  public var jsonValue: JSONValue { ["name": .string(name)] }
}

/// A list of users: the body of adding or removing members, and the answer naming who changed.
public struct MemberList: PayloadConvertible, Hashable {
  /// The users, in order.
  public var users: [UUID]

  /// Creates a list of `users`.
  public init(users: [UUID]) {
    self.users = users
  }

  /// Reads the list, recording it if bad; the list must not be empty.
  public static func read(from reader: inout ObjectReader) -> MemberList? {
    guard let users = reader.uuids("users") else { return nil }
    guard !users.isEmpty else {
      reader.record(
        "users", .invalidValue, expected: "non-empty array of UUID strings", found: .array([]))
      return nil
    }
    return MemberList(users: users)
  }

  /// The list as the backend reads it.
  public var jsonValue: JSONValue { ["users": .array(users.map(\.jsonValue))] }
}

/// The body of `POST /conversations/{id}/messages`: a message with the nonce that identifies it.
public struct NewMessage: PayloadConvertible, Hashable {
  /// The client-chosen id that makes sending idempotent.
  public var nonce: UUID
  /// The text; never blank.
  public var text: String

  /// Creates a message.
  public init(nonce: UUID, text: String) {
    self.nonce = nonce
    self.text = text
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> NewMessage? {
    let nonce = reader.uuid("nonce")
    let text = reader.nonBlank("text")
    guard let nonce, let text else { return nil }
    return NewMessage(nonce: nonce, text: text)
  }

  /// The message as the backend reads it.
  public var jsonValue: JSONValue { ["nonce": nonce.jsonValue, "text": .string(text)] }
}

/// The answer of adding or removing members: the users whose membership changed.
public struct MembersChanged: PayloadConvertible, Hashable {
  /// The users added or removed.
  public var userIDs: [UUID]

  /// Creates the answer.
  public init(userIDs: [UUID]) {
    self.userIDs = userIDs
  }

  /// Reads the list, recording it if bad.
  public static func read(from reader: inout ObjectReader) -> MembersChanged? {
    reader.uuids("user_ids").map(MembersChanged.init)
  }

  /// The answer as the backend writes it.
  public var jsonValue: JSONValue { ["user_ids": .array(userIDs.map(\.jsonValue))] }
}

extension ObjectReader {
  /// A required string with more than whitespace in it.
  mutating func nonBlank(_ key: String) -> String? {
    guard let text = string(key) else { return nil }
    guard !text.allSatisfy(\.isWhitespace) else {
      record(key, .invalidValue, expected: "non-blank string", found: .string(text))
      return nil
    }
    return text
  }

  /// An optional string with more than whitespace in it: absent gives `.some(nil)`.
  mutating func optionalNonBlank(_ key: String) -> String?? {
    guard object[key] != nil else { return .some(nil) }
    return nonBlank(key).map { .some($0) }
  }

  /// An optional whole number: absent gives `.some(nil)`.
  mutating func optionalInteger(_ key: String) -> Int?? {
    guard object[key] != nil else { return .some(nil) }
    return integer(key).map { .some($0) }
  }
}
