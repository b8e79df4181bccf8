import Foundation
import Models

/// Reads single objects and pages of placed objects from the file, without loading the rest.
struct SQLiteReader {
  let connection: SQLiteConnection
  let entities: EntityRegistry
  private let decoder = RecordDecoder()

  /// The object of `type` with `id`, or `nil` when the file has none.
  func object<Object: ModelObject>(_ type: Object.Type, id: UUID) throws(SQLiteStoreError)
    -> Object?
  {
    let entity = Object.entityName.rawValue
    let statement = try connection.prepare(
      "SELECT value FROM objects WHERE entity = ? AND id = ?", "read an object")
    try statement.bind(entity, at: 1)
    try statement.bind(id.recordBytes, at: 2)
    guard try statement.step() else { return nil }
    return try ObjectRows<Object>(decoder).object(in: statement, column: 0, id: id)
  }

  /// The last `limit` objects of `type` placed under `parent`, before `before`'s place when it
  /// is given, in the order of their places.
  func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object?
  ) throws(SQLiteStoreError) -> [Object] {
    guard limit > 0 else { return [] }
    let entity = Object.entityName.rawValue
    let bound = before.flatMap(Object.schema.place)?.rank
    let statement = try connection.prepare(
      """
      SELECT id, value FROM objects WHERE entity = ? AND parent = ?\(bound == nil ? "" : " AND rank < ?")
      ORDER BY rank DESC LIMIT ?
      """, "read a page of placed objects")
    try statement.bind(entity, at: 1)
    try statement.bind(parent.recordBytes, at: 2)
    var next: Int32 = 3
    if let bound {
      try statement.bind(bound, at: next)
      next += 1
    }
    try statement.bind(limit, at: next)
    let rows = ObjectRows<Object>(decoder)
    var page: [Object] = []
    // A limit of "all of them" is a bound, not a size.
    page.reserveCapacity(min(limit, 256))
    while try statement.step() {
      let id = try UUID(rowBytes: statement.bytes(at: 0), entity: entity)
      page.append(try rows.object(in: statement, column: 1, id: id))
    }
    return page.reversed()
  }

  /// Gives every object of an entity with places the place it has, as a file written before
  /// places were kept needs once.
  func placeEveryObject() throws(SQLiteStoreError) {
    for type in entities.types { try place(type) }
  }

  private func place<Object: ModelObject>(_ type: Object.Type) throws(SQLiteStoreError) {
    let entity = Object.entityName.rawValue
    let rows = try connection.prepare(
      "SELECT id, value FROM objects WHERE entity = ?", "read the objects to place")
    try rows.bind(entity, at: 1)
    let update = try connection.prepare(
      "UPDATE objects SET parent = ?, rank = ? WHERE entity = ? AND id = ?", "place an object")
    let objects = ObjectRows<Object>(decoder)
    while try rows.step() {
      let id = try UUID(rowBytes: rows.bytes(at: 0), entity: entity)
      let object = try objects.object(in: rows, column: 1, id: id)
      // An entity places all of its objects or none: without a place for one, it has none.
      guard let place = Object.schema.place(object) else { return }
      try update.bind(place.parent.recordBytes, at: 1)
      try update.bind(place.rank, at: 2)
      try update.bind(entity, at: 3)
      try update.bind(id.recordBytes, at: 4)
      try update.run()
    }
  }
}
