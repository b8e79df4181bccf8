import Foundation

extension ModelStore {
  /// Everything the store holds but the objects of paged entities, worked out from ``load()``.
  package func loadForOpening() throws -> StoredState {
    var state = try load()
    state.tables.removePagedEntities()
    return state
  }

  /// Every object of `type`, taken from everything the store holds.
  package func objects<Object: ModelObject>(_ type: Object.Type) throws -> [UUID: Object] {
    try load().tables.rows(of: type)
  }

  /// The object of `type` with `id`, looked up in everything the store holds.
  package func object<Object: ModelObject>(_ type: Object.Type, id: UUID) throws -> Object? {
    try load().tables.object(type, id: id)
  }

  /// The last `limit` objects of `type` placed under `parent`, before `before`'s place when it
  /// is given, worked out from everything the store holds: every placed object of the entity is
  /// sorted, as a store for tests may afford.
  package func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object?
  ) throws -> [Object] {
    guard limit > 0 else { return [] }
    return lastPlaced(
      try load().tables.rows(of: type).values, under: parent, limit: limit, before: before)
  }
}

/// The last `limit` of `candidates` placed under `parent`, before `before`'s place when it is
/// given, in the order of their places; candidates placed elsewhere are passed over.
func lastPlaced<Object: ModelObject>(
  _ candidates: some Sequence<Object>, under parent: UUID, limit: Int, before: Object?
) -> [Object] {
  let place = Object.schema.place
  let bound = before.flatMap(place)?.rank
  let placed = candidates.compactMap { object -> (rank: [UInt8], object: Object)? in
    guard let spot = place(object), spot.parent == parent else { return nil }
    if let bound, !spot.rank.lexicographicallyPrecedes(bound) { return nil }
    return (spot.rank, object)
  }
  let ordered = placed.sorted { $0.rank.lexicographicallyPrecedes($1.rank) }
  return ordered.suffix(limit).map(\.object)
}
