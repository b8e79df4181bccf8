import Foundation
import JSON
import ParsingCore

/// A user as the backend sends it.
///
/// ```json
/// {"id": UUID, "name": "Ada", "handle": "ada" | null, "accent_id": 3, "email": "…" | null}
/// ```
public struct UserPayload: PayloadConvertible, Hashable {
  /// The user's id.
  public var id: UUID
  /// The display name; never empty.
  public var name: String
  /// The unique handle, if the user chose one.
  public var handle: String?
  /// The index of the user's accent colour.
  public var accentID: Int
  /// The e-mail address, when the backend shares it.
  public var email: String?

  /// Creates a user payload.
  public init(id: UUID, name: String, handle: String? = nil, accentID: Int, email: String? = nil) {
    self.id = id
    self.name = name
    self.handle = handle
    self.accentID = accentID
    self.email = email
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> UserPayload? {
    let id = reader.uuid("id")
    let name = reader.string("name", nonEmpty: true)
    let handle = reader.optionalString("handle")
    let accentID = reader.integer("accent_id")
    let email = reader.optionalString("email")
    if let email = email ?? nil, !email.contains("@") {
      reader.record("email", .invalidValue, expected: "e-mail address", found: .string(email))
    }
    guard let id, let name, let handle, let accentID, let email else { return nil }
    return UserPayload(id: id, name: name, handle: handle, accentID: accentID, email: email)
  }

  /// The payload as the backend writes it, absent optionals as `null`.
  public var jsonValue: JSONValue {
    [
      "id": id.jsonValue, "name": .string(name), "handle": handle.map(JSONValue.string) ?? .null,
      "accent_id": .integer(accentID), "email": email.map(JSONValue.string) ?? .null,
    ]
  }
}

/// A partial user, as a `user.update` event carries it: the id and only what changed.
public struct UserUpdatePayload: PayloadConvertible, Hashable {
  /// The user that changed.
  public var id: UUID
  /// The new name, if it changed.
  public var name: String?
  /// The new accent, if it changed.
  public var accentID: Int?
  /// The new handle, if it changed.
  public var handle: String?

  /// Creates an update.
  public init(id: UUID, name: String? = nil, accentID: Int? = nil, handle: String? = nil) {
    self.id = id
    self.name = name
    self.accentID = accentID
    self.handle = handle
  }

  /// Reads the id and whichever changed fields are present.
  public static func read(from reader: inout ObjectReader) -> UserUpdatePayload? {
    let id = reader.uuid("id")
    let name = reader.object["name"] == nil ? nil : reader.string("name", nonEmpty: true)
    let accentID = reader.object["accent_id"] == nil ? nil : reader.integer("accent_id")
    let handle = reader.object["handle"] == nil ? nil : reader.string("handle", nonEmpty: true)
    guard let id else { return nil }
    return UserUpdatePayload(id: id, name: name, accentID: accentID, handle: handle)
  }

  /// The update with only the fields that changed.
  public var jsonValue: JSONValue {
    var members: [String: JSONValue] = ["id": id.jsonValue]
    if let name { members["name"] = .string(name) }
    if let accentID { members["accent_id"] = .integer(accentID) }
    if let handle { members["handle"] = .string(handle) }
    return .object(members)
  }
}
