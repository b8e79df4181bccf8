import Foundation

/// A context's saved objects of a paged entity (``EntitySchema/parent``), read from the store.
///
/// The store holds every save, the other context's too, but a context has not merged the saves
/// still in its inbox. So each object those saves changed is taken back to what it was before the
/// first of them: gone if they inserted it, their ``EntityChanges/before`` if they updated or
/// deleted it. What a context reads through a view is then what it saved or merged last, as if
/// it had held every object all along.
struct SavedView {
  /// Where the objects are read.
  let store: any ModelStore
  /// The saves the context has not merged yet, oldest first.
  let inbox: [ChangeSet]

  /// The saved object of `type` with `id`, or `nil` if there is none.
  func object<Object: ModelObject>(_ type: Object.Type, id: UUID) throws -> Object? {
    for changes in inbox {
      let entity = changes[type]
      if entity.inserted[id] != nil { return nil }
      if let before = entity.before[id] { return before }
    }
    return try store.object(type, id: id)
  }

  /// The last `limit` saved objects of `type` placed under `parent`, of those placed before
  /// `before` when it is given, in the order of their places.
  func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object?
  ) throws -> [Object] {
    guard limit > 0 else { return [] }
    let changed = earliestValues(of: type)
    // Each changed object may stand in the store's page: read that many more, so that the page
    // holds `limit` objects the inbox left alone whenever there are that many.
    let (wanted, overflow) = limit.addingReportingOverflow(changed.count)
    let stored = try store.children(
      type, of: parent, limit: overflow ? Int.max : wanted, before: before)
    guard !changed.isEmpty else { return stored }
    let unchanged = stored.filter { changed[$0.id] == nil }
    let earlier = changed.values.compactMap { $0 }
    return lastPlaced(unchanged + earlier, under: parent, limit: limit, before: before)
  }

  /// Every saved object of `type`, by id: the whole entity, read from everything the store holds.
  func rows<Object: ModelObject>(of type: Object.Type) throws -> [UUID: Object] {
    var rows = try store.objects(type)
    for (id, value) in earliestValues(of: type) { rows[id] = value }
    return rows
  }

  /// Each object of `type` the inbox changed, with what it was before the first change: `nil`
  /// for one the inbox inserted.
  private func earliestValues<Object: ModelObject>(of type: Object.Type) -> [UUID: Object?] {
    var values: [UUID: Object?] = [:]
    for changes in inbox {
      let entity = changes[type]
      guard !entity.isEmpty else { continue }
      for id in entity.inserted.keys where values[id] == nil { values[id] = .some(nil) }
      for (id, object) in entity.before where values[id] == nil { values[id] = .some(object) }
    }
    return values
  }
}
