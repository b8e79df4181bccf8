import Foundation
import Models

/// A value the store writes field by field with ``RecordFields`` instead of through `Codable`,
/// to the same bytes.
///
/// Each conformance names the fields its type's `Codable` form writes, in the same order; a
/// test compares both forms for every stored property set, and fails when a property is added
/// to the type but not here. A type without a conformance is written through `Codable`.
protocol RecordWritable {
  /// Writes the value's fields.
  func write(to fields: inout RecordFields) throws
}

extension RecordWritable {
  /// The value's record bytes.
  var record: [UInt8] {
    get throws {
      var fields = RecordFields()
      try write(to: &fields)
      return fields.finished()
    }
  }
}

extension User: RecordWritable {
  func write(to fields: inout RecordFields) {
    fields.write("id", id)
    fields.write("isSelf", isSelf)
    fields.write("name", name)
    fields.write("handle", handle) { $0.write($1, $2) }
    fields.write("accentID", accentID)
    fields.write("email", email) { $0.write($1, $2) }
  }
}

extension Connection: RecordWritable {
  func write(to fields: inout RecordFields) {
    fields.write("from", from)
    fields.write("to", to)
    fields.write("status", status.rawValue)
    fields.write("conversationID", conversationID) { $0.write($1, $2) }
    fields.write("lastUpdate", lastUpdate)
    fields.write("message", message) { $0.write($1, $2) }
  }
}

extension Conversation: RecordWritable {
  func write(to fields: inout RecordFields) {
    fields.write("id", id)
    fields.write("creatorID", creatorID)
    fields.write("kind", kind.rawValue)
    fields.write("name", name) { $0.write($1, $2) }
    fields.write("participantIDs", participantIDs)
    fields.write("lastEventTime", lastEventTime)
  }
}

extension Message: RecordWritable {
  func write(to fields: inout RecordFields) {
    fields.write("nonce", nonce)
    fields.write("conversationID", conversationID)
    fields.write("senderID", senderID)
    fields.write("localTime", localTime)
    fields.write("text", text)
    fields.write("serverTime", serverTime) { $0.write($1, $2) }
    fields.write("deliveryState", deliveryState.rawValue)
  }
}

extension PendingChange: RecordWritable where Object: RecordWritable {
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  func write(to fields: inout RecordFields) throws {
    fields.write("isInserted", isInserted)
    fields.write("isDeleted", isDeleted)
    // Most changes are of one key; its name is the list, without the generic call.
    if keys.count == 1, let key = keys.first {
      fields.write("keys", key.rawValue)
    } else {
      fields.write("keys", Object.Key.names(of: keys))
    }
    if let original { try fields.write("original", original) }
    if let failure { try fields.write("failure", encoding: failure) }
    if !unconfirmed.isEmpty { try fields.write("unconfirmed", encoding: unconfirmed) }
    if let editBase { try fields.write("editBase", editBase) }
    fields.write("originalVersion", originalVersion) { $0.write($1, $2) }
  }
}
