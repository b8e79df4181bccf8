import Foundation

/// Every object of one entity, by id, with the inverse indexes of the entity's relationships.
package struct Table<Object: ModelObject>: Sendable, Equatable {
  /// The objects, by id.
  package private(set) var rows: [UUID: Object] = [:]
  /// For each relationship of the entity, which objects refer to each target.
  private(set) var inverse = InverseIndex()
  /// The entity's relationships, read once: most entities have none, and then a put skips the
  /// indexes altogether.
  private let relationships = Object.relationships

  /// Creates an empty table.
  package init() {}

  /// Inserts or replaces `object`, keeping the indexes current.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  mutating func put(_ object: Object) {
    guard !relationships.isEmpty else {
      rows[object.id] = object
      return
    }
    let previous = rows.updateValue(object, forKey: object.id)
    inverse.reindex(object.id, relationships, removing: previous, adding: object)
  }

  /// Makes room for `count` rows, before a store loads that many.
  mutating func reserveCapacity(_ count: Int) {
    rows.reserveCapacity(count)
  }

  /// Removes the object `id`, if there is one.
  mutating func remove(_ id: UUID) {
    guard let previous = rows.removeValue(forKey: id), !relationships.isEmpty else { return }
    inverse.reindex(id, relationships, removing: previous, adding: nil)
  }

  /// Applies one save's changes to this entity: inserts, updates, deletions.
  ///
  /// An update's object is already the saved row with only its changed keys new (the save built
  /// it so), which is also what a store writes.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  mutating func apply(_ changes: EntityChanges<Object>) {
    for object in changes.inserted.values { put(object) }
    for update in changes.updated.values { put(update.object) }
    for id in changes.deleted { remove(id) }
  }

  /// Tables are equal when they hold the same objects; the indexes follow from the objects.
  package static func == (lhs: Self, rhs: Self) -> Bool { lhs.rows == rhs.rows }
}

extension Table: EntitySlot {}

/// What `Tables` asks of a table whose entity it does not know statically.
protocol TableRows {
  var rowCount: Int { get }
  func hasSameRows(as other: any EntitySlot) -> Bool
}

extension Table: TableRows {
  var rowCount: Int { rows.count }

  func hasSameRows(as other: any EntitySlot) -> Bool {
    guard let other = other as? Self else { return false }
    return rows == other.rows
  }
}
