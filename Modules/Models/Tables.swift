import Foundation

/// Every object a store or a context holds, a ``Table`` per entity.
package struct Tables: Sendable, Equatable {
  private var tables = EntityMap()

  /// Creates empty tables.
  package init() {}

  /// Creates tables holding `objects`, of any entities.
  package init(_ objects: [any ModelObject]) {
    for object in objects { put(object) }
  }

  /// The table of `type`, empty if there are no such objects.
  package func table<Object: ModelObject>(_ type: Object.Type) -> Table<Object> {
    tables[Table<Object>.self]
  }

  /// The objects of `type` by id, without making an empty table when there are none.
  func rows<Object: ModelObject>(of type: Object.Type) -> [UUID: Object] {
    tables.slot(Table<Object>.self)?.rows ?? [:]
  }

  /// The object of `type` with `id`, or `nil`.
  package func object<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    tables.slot(Table<Object>.self)?.rows[id]
  }

  /// How many objects of `type` there are.
  package func count<Object: ModelObject>(of type: Object.Type) -> Int {
    tables.slot(Table<Object>.self)?.rows.count ?? 0
  }

  /// The total number of objects of every entity.
  package var totalCount: Int {
    tables.slots.values.reduce(0) { $0 + Self.rowCount(of: $1) }
  }

  /// The ids of the objects of `type` that refer to `target` through `relationship`.
  func sources<Object: ModelObject>(
    _ type: Object.Type, referringTo target: UUID, via relationship: String
  ) -> Set<UUID> {
    tables.slot(Table<Object>.self)?.inverse.sources(of: target, via: relationship) ?? []
  }

  /// Makes room for `count` rows of `type`, before a store loads that many.
  package mutating func reserveCapacity<Object: ModelObject>(_ count: Int, for type: Object.Type) {
    tables.modify(Table<Object>.self) { $0.reserveCapacity(count) }
  }

  /// Inserts or replaces the row of `object`, as loading a store does.
  package mutating func put<Object: ModelObject>(_ object: Object) {
    tables.modify(Table<Object>.self) { $0.put(object) }
  }

  /// Inserts or replaces the rows of `objects`, as loading a store does in batches: the table is
  /// looked up once for all of them.
  package mutating func put<Object: ModelObject>(contentsOf objects: [Object]) {
    tables.modify(Table<Object>.self) { table in
      for object in objects { table.put(object) }
    }
  }

  /// Removes every object of the paged entities (``EntitySchema/parent``): a context starts
  /// without them and reads them from the store.
  mutating func removePagedEntities() {
    func removeIfPaged<Object: ModelObject>(_ type: Object.Type) {
      if Object.schema.parent != nil { tables.remove(Table<Object>.self) }
    }
    for type in tables.objectTypes { removeIfPaged(type) }
  }

  /// Keeps, of the objects of `type`, only those whose ids are in `ids`.
  mutating func keepOnly<Object: ModelObject>(_ ids: Set<UUID>, of type: Object.Type) {
    tables.modify(Table<Object>.self) { table in
      var kept = Table<Object>()
      for id in ids {
        if let row = table.rows[id] { kept.put(row) }
      }
      table = kept
    }
  }

  /// Removes the object of `type` with `id`, if there is one.
  mutating func remove<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    tables.modify(Table<Object>.self) { $0.remove(id) }
  }

  /// Applies a saved change set: inserts, the changed keys of updates, and deletions.
  package mutating func apply(_ changes: ChangeSet) {
    func applyOne<Changes: AnyEntityChanges>(_ changes: Changes) { apply(changes.typed) }
    for entityChanges in changes.entityChanges { applyOne(entityChanges) }
  }

  mutating func apply<Object: ModelObject>(_ changes: EntityChanges<Object>) {
    guard !changes.isEmpty else { return }
    tables.modify(Table<Object>.self) { $0.apply(changes) }
  }

  /// Tables are equal when every entity holds the same objects; an entity with no objects equals
  /// one that was never written.
  package static func == (lhs: Self, rhs: Self) -> Bool {
    let keys = Set(lhs.tables.slots.keys).union(rhs.tables.slots.keys)
    return keys.allSatisfy { key in
      switch (lhs.tables.slots[key], rhs.tables.slots[key]) {
      case (let left?, let right?): sameRows(left, right)
      case (let slot?, nil), (nil, let slot?): rowCount(of: slot) == 0
      case (nil, nil): true
      }
    }
  }

  private static func rowCount(of slot: any EntitySlot) -> Int {
    (slot as? any TableRows)?.rowCount ?? 0
  }

  private static func sameRows(_ lhs: any EntitySlot, _ rhs: any EntitySlot) -> Bool {
    guard let lhs = lhs as? any TableRows else { return false }
    return lhs.hasSameRows(as: rhs)
  }
}
