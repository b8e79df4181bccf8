import Foundation
import Models

/// Writes one save into the store's tables, inside the transaction the store opened.
struct SQLiteWriter {
  let connection: SQLiteConnection
  let entities: EntityRegistry
  private let encoder = RecordEncoder()

  init(connection: SQLiteConnection, entities: EntityRegistry) {
    self.connection = connection
    self.entities = entities
  }

  func write(_ save: StoreSave) throws(SQLiteStoreError) {
    let statements = try Statements(connection)
    for type in entities.types {
      try write(type, of: save, with: statements)
    }
    if let metadata = save.metadata {
      try statements.putMetadata.bind("sync", at: 1)
      try statements.putMetadata.bind(
        try encoded(metadata, "metadata", "sync", encoder.encode), at: 2)
      try statements.putMetadata.run()
    }
  }

  private func write<Object: ModelObject>(
    _ type: Object.Type, of save: StoreSave, with statements: Statements
  ) throws(SQLiteStoreError) {
    let changes = save.changes[type]
    let entity = Object.entityName.rawValue
    let entityText = Array(entity.utf8CString)
    let encodeObject = encoder.encoder(for: Object.self)
    let encodeRecord = encoder.encoder(for: PendingChange<Object>.self)
    // Rows go in the order of their keys, as the table keeps them: each page of the table is
    // read and changed once, where an order by hash went back and forth across all of them.
    // The coordinator has the saving context merge every earlier save before it saves, so the
    // keys an update did not change hold what the file holds: the object is the row.
    var ids: [UUID] = []
    var objects: [Object] = []
    ids.reserveCapacity(changes.inserted.count + changes.updated.count)
    objects.reserveCapacity(ids.capacity)
    for (id, object) in changes.inserted {
      ids.append(id)
      objects.append(object)
    }
    for (id, update) in changes.updated {
      ids.append(id)
      objects.append(update.object)
    }
    let place = Object.schema.place
    for index in Self.inStoreOrder(ids) {
      let id = ids[index]
      let value = try encoded(objects[index], entity, id, encodeObject)
      guard let place = place(objects[index]) else {
        try statements.putObject.run(entityText, id, value)
        continue
      }
      // The place is bound first; `run` binds the rest, steps, and clears every binding.
      try statements.putPlacedObject.bind(place.parent.recordBytes, at: 4)
      try statements.putPlacedObject.bind(place.rank, at: 5)
      try statements.putPlacedObject.run(entityText, id, value)
    }
    let deleted = Array(changes.deleted)
    for id in Self.inStoreOrder(deleted).map({ deleted[$0] }) {
      try statements.deleteObject.bind(entity, at: 1)
      try statements.deleteObject.bind(id.recordBytes, at: 2)
      try statements.deleteObject.run()
    }
    let records = save.changeLog[type]
    let recordIDs = Array(records.keys)
    let recordValues = Array(records.values)
    for index in Self.inStoreOrder(recordIDs) {
      let (id, record) = (recordIDs[index], recordValues[index])
      if record.isEmpty {
        try statements.deletePending.bind(entity, at: 1)
        try statements.deletePending.bind(id.recordBytes, at: 2)
        try statements.deletePending.run()
      } else {
        try statements.putPending.run(
          entityText, id, try encoded(record, entity, id, encodeRecord))
      }
    }
  }

  /// The positions of `ids` in the order SQLite keeps rows keyed by them.
  private static func inStoreOrder(_ ids: [UUID]) -> [Int] {
    let orders = ids.map(\.byteOrder)
    return orders.indices.sorted { orders[$0] < orders[$1] }
  }

  private func encoded<Value: Encodable>(
    _ value: Value, _ entity: String, _ id: UUID, _ encode: (Value) throws -> [UInt8]
  ) throws(SQLiteStoreError) -> [UInt8] {
    try encoded(value, entity, id.uuidString.lowercased(), encode)
  }

  /// Encodes a row; `id` names it only if it cannot be written.
  private func encoded<Value: Encodable>(
    _ value: Value, _ entity: String, _ id: @autoclosure () -> String,
    _ encode: (Value) throws -> [UInt8]
  ) throws(SQLiteStoreError) -> [UInt8] {
    do {
      return try encode(value)
    } catch {
      throw .unreadableRow(entity: entity, id: id(), reason: "it cannot be written: \(error)")
    }
  }

  /// The statements a save uses, prepared once per save.
  private struct Statements {
    let putObject: SQLiteStatement
    let putPlacedObject: SQLiteStatement
    let deleteObject: SQLiteStatement
    let putPending: SQLiteStatement
    let deletePending: SQLiteStatement
    let putMetadata: SQLiteStatement

    init(_ connection: SQLiteConnection) throws(SQLiteStoreError) {
      putObject = try connection.prepare(
        "INSERT OR REPLACE INTO objects (entity, id, value) VALUES (?, ?, ?)", "write an object")
      putPlacedObject = try connection.prepare(
        "INSERT OR REPLACE INTO objects (entity, id, value, parent, rank) VALUES (?, ?, ?, ?, ?)",
        "write an object with its place")
      deleteObject = try connection.prepare(
        "DELETE FROM objects WHERE entity = ? AND id = ?", "delete an object")
      putPending = try connection.prepare(
        "INSERT OR REPLACE INTO pending (entity, id, record) VALUES (?, ?, ?)",
        "write a pending change")
      deletePending = try connection.prepare(
        "DELETE FROM pending WHERE entity = ? AND id = ?", "remove a pending change")
      putMetadata = try connection.prepare(
        "INSERT OR REPLACE INTO metadata (key, value) VALUES (?, ?)", "write the metadata")
    }
  }
}

extension UUID {
  /// The id as the store keys rows by it: its sixteen bytes.
  var recordBytes: [UInt8] { bytes }
}
