import Foundation
import Models

/// Reads everything a store holds into memory.
struct SQLiteLoader {
  let connection: SQLiteConnection
  let entities: EntityRegistry
  private let decoder = RecordDecoder()
  /// How many rows are put into a table at once.
  private static let batchSize = 1_024

  init(connection: SQLiteConnection, entities: EntityRegistry) {
    self.connection = connection
    self.entities = entities
  }

  /// Everything the file holds; without the objects of paged entities unless `pagedObjects`.
  func load(pagedObjects: Bool = true) throws(SQLiteStoreError) -> StoredState {
    var state = StoredState()
    let known = Set(entities.names.map(\.rawValue))
    try refuseUnknownEntities(in: "objects", known: known)
    try refuseUnknownEntities(in: "pending", known: known)
    for type in entities.types {
      try load(type, pagedObjects: pagedObjects, into: &state)
    }
    let metadata = try connection.prepare(
      "SELECT value FROM metadata WHERE key = 'sync'", "read the metadata")
    if try metadata.step() {
      let read = decoder.decoder(for: SyncMetadata.self)
      state.metadata = try metadata.withBytes(at: 0) { bytes throws(SQLiteStoreError) in
        try decode(bytes, "metadata", "sync", read)
      }
    }
    return state
  }

  private func load<Object: ModelObject>(
    _ type: Object.Type, pagedObjects: Bool, into state: inout StoredState
  ) throws(SQLiteStoreError) {
    let entity = Object.entityName.rawValue
    if pagedObjects || Object.schema.parent == nil { try loadObjects(type, into: &state) }
    let pending = try connection.prepare(
      "SELECT id, record FROM pending WHERE entity = ?", "read the pending changes")
    try pending.bind(entity, at: 1)
    let readRecord = decoder.decoder(for: PendingChange<Object>.self)
    while try pending.step() {
      let id = try UUID(rowBytes: pending.bytes(at: 0), entity: entity)
      let record = try pending.withBytes(at: 1) { bytes throws(SQLiteStoreError) in
        try decode(bytes, entity, id.uuidString.lowercased(), readRecord)
      }
      state.changeLog.set(record, for: id, of: type)
    }
  }

  /// Every object of `type` the file holds, by id, without the indexes a table keeps.
  func objects<Object: ModelObject>(_ type: Object.Type) throws(SQLiteStoreError) -> [UUID: Object]
  {
    var rows: [UUID: Object] = [:]
    try readObjects(
      type, reserve: { rows.reserveCapacity($0) },
      take: { batch in for object in batch { rows[object.id] = object } })
    return rows
  }

  private func loadObjects<Object: ModelObject>(
    _ type: Object.Type, into state: inout StoredState
  ) throws(SQLiteStoreError) {
    try readObjects(
      type, reserve: { state.tables.reserveCapacity($0, for: type) },
      take: { state.tables.put(contentsOf: $0) })
  }

  /// Reads every object of `type`, telling `reserve` how many there are first and handing them
  /// to `take` in batches: one lookup of a table per batch, not per row.
  private func readObjects<Object: ModelObject>(
    _ type: Object.Type, reserve: (Int) -> Void, take: ([Object]) -> Void
  ) throws(SQLiteStoreError) {
    let entity = Object.entityName.rawValue
    let counting = try connection.prepare(
      "SELECT count(*) FROM objects WHERE entity = ?", "count the objects")
    try counting.bind(entity, at: 1)
    if try counting.step() { reserve(counting.integer(at: 0)) }
    let objects = try connection.prepare(
      "SELECT id, value FROM objects WHERE entity = ?", "read the objects")
    try objects.bind(entity, at: 1)
    var batch: [Object] = []
    batch.reserveCapacity(Self.batchSize)
    let rows = ObjectRows<Object>(decoder)
    while try objects.step() {
      let id = try UUID(rowBytes: objects.bytes(at: 0), entity: entity)
      batch.append(try rows.object(in: objects, column: 1, id: id))
      if batch.count == Self.batchSize {
        take(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    take(batch)
  }

  /// Refuses rows of an entity this build does not know, rather than dropping them unread.
  ///
  /// The entities are listed by jumping from each to the next in the primary key's order, one
  /// lookup per entity: a scan for distinct entities would read every row, a million messages
  /// when a stack opens.
  private func refuseUnknownEntities(in table: String, known: Set<String>)
    throws(SQLiteStoreError)
  {
    let next = try connection.prepare(
      "SELECT entity FROM \(table) WHERE entity > ? ORDER BY entity LIMIT 1",
      "list the stored entities")
    var entity = ""
    while true {
      next.reset()
      try next.bind(entity, at: 1)
      guard try next.step() else { return }
      entity = next.text(at: 0)
      guard known.contains(entity) else {
        throw .unreadableRow(
          entity: entity, id: "*", reason: "the entity is not in this stack's registry")
      }
    }
  }

  /// Reads a row from bytes SQLite holds with `read`; `id` names it only if it cannot be read.
  private func decode<Value>(
    _ buffer: UnsafeBufferPointer<UInt8>, _ entity: String, _ id: @autoclosure () -> String,
    _ read: (UnsafeBufferPointer<UInt8>) throws -> Value
  ) throws(SQLiteStoreError) -> Value {
    do {
      return try read(buffer)
    } catch {
      throw .unreadableRow(entity: entity, id: id(), reason: "\(error)")
    }
  }
}

extension UUID {
  /// The id a row of `entity` is keyed by: sixteen bytes, or the row is damaged.
  init(rowBytes bytes: [UInt8], entity: String) throws(SQLiteStoreError) {
    guard let id = UUID(recordBytes: bytes) else {
      throw .unreadableRow(
        entity: entity, id: "\(bytes.count) bytes", reason: "its id is not 16 bytes")
    }
    self = id
  }

  /// The id whose sixteen bytes are `bytes`; `nil` when they are not sixteen.
  init?(recordBytes bytes: [UInt8]) {
    guard bytes.count == 16 else { return nil }
    self.init(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
  }
}
