import Foundation
import Models

/// A value the store reads field by field with ``RecordFieldReader`` instead of through
/// `Codable`, from the same bytes.
///
/// Each conformance reads the fields its type's `Codable` form reads, with the same rules: a
/// missing optional field is `nil`, a missing required one or a damaged one an error naming it.
/// A test reads the same bytes both ways and compares. A type without a conformance is read
/// through `Codable`.
protocol RecordReadable {
  /// Reads the value's fields from `record`.
  init(reading record: inout RecordFieldReader) throws
}

extension User: RecordReadable {
  init(reading record: inout RecordFieldReader) throws {
    self.init(
      id: try record.uuid("id"), isSelf: try record.bool("isSelf"), name: try record.string("name"),
      handle: try record.optionalString("handle"), accentID: try record.integer("accentID"),
      email: try record.optionalString("email"))
  }
}

extension Connection: RecordReadable {
  init(reading record: inout RecordFieldReader) throws {
    self.init(
      from: try record.uuid("from"), to: try record.uuid("to"),
      status: try record.raw("status", as: Status.self),
      conversationID: try record.optionalUUID("conversationID"),
      lastUpdate: try record.date("lastUpdate"), message: try record.optionalString("message"))
  }
}

extension Conversation: RecordReadable {
  init(reading record: inout RecordFieldReader) throws {
    let id = try record.uuid("id")
    let creatorID = try record.uuid("creatorID")
    self.init(
      id: id, kind: try record.raw("kind", as: Kind.self), name: try record.optionalString("name"),
      creatorID: creatorID, participantIDs: try record.uuidSet("participantIDs"),
      lastEventTime: try record.date("lastEventTime"))
  }
}

extension Message: RecordReadable {
  init(reading record: inout RecordFieldReader) throws {
    let nonce = try record.uuid("nonce")
    let conversationID = try record.uuid("conversationID")
    let senderID = try record.uuid("senderID")
    let localTime = try record.date("localTime")
    self.init(
      nonce: nonce, conversationID: conversationID, senderID: senderID,
      text: try record.string("text"), localTime: localTime,
      serverTime: try record.optionalDate("serverTime"),
      deliveryState: try record.raw("deliveryState", as: DeliveryState.self))
  }
}

extension PendingChange: RecordReadable where Object: RecordReadable {
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  init(reading record: inout RecordFieldReader) throws {
    self.init()
    isInserted = try record.bool("isInserted")
    isDeleted = try record.bool("isDeleted")
    keys = try Self.keys(try record.string("keys"), at: record.codingPath)
    setBox(
      original: try record.record("original", as: Object.self),
      failure: try record.decoding("failure", as: PushFailure.self),
      unconfirmed: try record.decoding("unconfirmed", as: [UnconfirmedValue<Object>].self) ?? [],
      // A record written before edit bases existed measures the change against its original.
      editBase: try record.record("editBase", as: Object.self))
    originalVersion = try record.optionalInteger("originalVersion")
  }

  /// The keys named in `names`, comma-separated; a name that is no key is an error naming it.
  private static func keys(_ names: String, at codingPath: [any CodingKey]) throws -> Set<
    Object.Key
  > {
    if names.isEmpty { return [] }
    // Most changes are of one key; its name is the list.
    if let key = Object.Key(rawValue: names) { return [key] }
    var keys: Set<Object.Key> = []
    for name in names.split(separator: ",") {
      guard let key = Object.Key(rawValue: String(name)) else {
        throw RecordReader.corrupt(codingPath, "'\(name)' is not a key of the entity")
      }
      keys.insert(key)
    }
    return keys
  }
}
