import Foundation

/// For each relationship of one entity, the sources of each target in the relationship's order
/// (``Relationship/order``), kept only for the targets read so far.
///
/// A target's list is built by its first read, one sort of its sources; after that, every put and
/// removal of a source moves only that source, found by binary search, so reading the latest few
/// sources of a target costs as much as the few, not as all of them.
struct OrderedIndex<Object: ModelObject>: Sendable {
  /// By relationship name, by target id: the sources in the relationship's order.
  private var entries: [String: [UUID: [UUID]]] = [:]

  /// Whether no target was read yet, so that a put has nothing to keep in order.
  var isEmpty: Bool { entries.isEmpty }

  /// The sources of `target` through `relationship`, in its order; the first read sorts the
  /// sources `inverse` holds for it.
  mutating func sources(
    of target: UUID, via relationship: Relationship<Object>, rows: [UUID: Object],
    inverse: InverseIndex
  ) -> [UUID] {
    if let ids = entries[relationship.name]?[target] { return ids }
    let ids = inverse.sources(of: target, via: relationship.name).compactMap { rows[$0] }
      .sorted(by: relationship.order).map(\.id)
    entries[relationship.name, default: [:]][target] = ids
    return ids
  }

  /// Moves `id` from where `old` stood to where `new` belongs, for every target read so far.
  ///
  /// `rows` already holds `new` (or nothing, for a removal). A source whose place is unchanged
  /// is not moved, and a list is changed in place, never copied.
  mutating func move(
    _ id: UUID, from old: Object?, to new: Object?, _ relationships: [Relationship<Object>],
    rows: [UUID: Object]
  ) {
    for relationship in relationships where entries[relationship.name] != nil {
      let (name, order) = (relationship.name, relationship.order)
      let after = new.map(relationship.targets) ?? []
      var kept: [UUID] = []
      if let old {
        // The place of `id` is searched with its old value, the others' with their rows.
        let oldRows: (UUID) -> Object? = { $0 == id ? old : rows[$0] }
        for target in relationship.targets(old) {
          let found = entries[name]?[target].flatMap { ids -> (index: Int, fits: Bool)? in
            guard let index = Self.place(of: old, in: ids, order: order, rows: oldRows),
              index < ids.count, ids[index] == id
            else { return nil }
            let fits = new.map { Self.fits($0, at: index, in: ids, order, rows) } ?? false
            return (index, fits)
          }
          guard let found else { continue }
          if found.fits, after.contains(target) {
            kept.append(target)
          } else {
            entries[name]?[target]?.remove(at: found.index)
          }
        }
      }
      guard let new else { continue }
      for target in after where !kept.contains(target) {
        let index = entries[name]?[target].flatMap { ids -> Int? in
          guard let index = Self.place(of: new, in: ids, order: order, rows: { rows[$0] }),
            index == ids.count || ids[index] != id
          else { return nil }
          return index
        }
        guard let index else { continue }
        entries[name]?[target]?.insert(id, at: index)
      }
    }
  }

  /// The first place in `ids` whose object does not come before `object`.
  ///
  /// That is where `object` stands, or is to be inserted; `nil` when a listed id has no row,
  /// which a kept index never has.
  static func place(
    of object: Object, in ids: [UUID], order: (Object, Object) -> Bool,
    rows: (UUID) -> Object?
  ) -> Int? {
    var low = 0
    var high = ids.count
    while low < high {
      let middle = (low + high) / 2
      guard let other = rows(ids[middle]) else { return nil }
      if order(other, object) { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Whether `object` still belongs at `index`, between its neighbours there.
  private static func fits(
    _ object: Object, at index: Int, in ids: [UUID], _ order: (Object, Object) -> Bool,
    _ rows: [UUID: Object]
  ) -> Bool {
    if index > 0 {
      guard let previous = rows[ids[index - 1]], order(previous, object) else { return false }
    }
    if index + 1 < ids.count {
      guard let next = rows[ids[index + 1]], order(object, next) else { return false }
    }
    return true
  }
}
