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
      try statements.putMetadata.bind(try encoded(metadata, "metadata", "sync"), at: 2)
      try statements.putMetadata.run()
    }
  }

  private func write<Object: ModelObject>(
    _ type: Object.Type, of save: StoreSave, with statements: Statements
  ) throws(SQLiteStoreError) {
    let changes = save.changes[type]
    let entity = Object.entityName.rawValue
    for (id, object) in changes.inserted {
      try put(statements.putObject, entity, id, try encoded(object, entity, id))
    }
    for (id, update) in changes.updated {
      // The coordinator has the saving context merge every earlier save before it saves, so
      // the keys an update did not change hold what the file holds: the object is the row.
      try put(statements.putObject, entity, id, try encoded(update.object, entity, id))
    }
    for id in changes.deleted {
      try statements.deleteObject.bind(entity, at: 1)
      try statements.deleteObject.bind(id.recordBytes, at: 2)
      try statements.deleteObject.run()
    }
    for (id, record) in save.changeLog[type] {
      if record.isEmpty {
        try statements.deletePending.bind(entity, at: 1)
        try statements.deletePending.bind(id.recordBytes, at: 2)
        try statements.deletePending.run()
      } else {
        try put(statements.putPending, entity, id, try encoded(record, entity, id))
      }
    }
  }

  private func put(
    _ statement: SQLiteStatement, _ entity: String, _ id: UUID, _ value: [UInt8]
  ) throws(SQLiteStoreError) {
    try statement.bind(entity, at: 1)
    try statement.bind(id.recordBytes, at: 2)
    try statement.bind(value, at: 3)
    try statement.run()
  }

  private func encoded<Value: Encodable>(_ value: Value, _ entity: String, _ id: UUID)
    throws(SQLiteStoreError) -> [UInt8]
  {
    try encoded(value, entity, id.uuidString.lowercased())
  }

  /// Encodes a row; `id` names it only if it cannot be written.
  private func encoded<Value: Encodable>(
    _ value: Value, _ entity: String, _ id: @autoclosure () -> String
  ) throws(SQLiteStoreError) -> [UInt8] {
    do {
      return try encoder.encode(value)
    } catch {
      throw .unreadableRow(entity: entity, id: id(), reason: "it cannot be written: \(error)")
    }
  }

  /// The statements a save uses, prepared once per save.
  private struct Statements {
    let putObject: SQLiteStatement
    let deleteObject: SQLiteStatement
    let putPending: SQLiteStatement
    let deletePending: SQLiteStatement
    let putMetadata: SQLiteStatement

    init(_ connection: SQLiteConnection) throws(SQLiteStoreError) {
      putObject = try connection.prepare(
        "INSERT OR REPLACE INTO objects (entity, id, value) VALUES (?, ?, ?)", "write an object")
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
