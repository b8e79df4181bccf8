import Foundation

/// A reference from objects of one entity to objects of another, declared by the source entity,
/// such as a message's conversation or a conversation's participants.
///
/// Tables keep an inverse index for every relationship, so "the users of this conversation"
/// costs as much as their number, not that of all objects; and deleting an object checks the
/// rules of the objects that still refer to it. A paged entity's objects under their parent
/// (``EntitySchema/parent``) are read from the store's index of places instead.
package struct Relationship<Source: ModelObject>: Sendable {
  /// The relationship's name, unique among the source entity's relationships.
  package let name: String
  /// The entity the ids refer to.
  package let target: EntityName
  let targets: @Sendable (Source) -> [UUID]

  /// A relationship called `name` from `Source` to `Target`, whose ids `targets` reads.
  package init<Target: ModelObject>(
    _ name: String, to target: Target.Type, targets: @escaping @Sendable (Source) -> [UUID]
  ) {
    self.name = name
    self.target = Target.entityName
    self.targets = targets
  }
}

/// Inverse indexes of one entity's relationships: for each relationship, for each target id, the
/// ids of the source objects that refer to it.
struct InverseIndex: Sendable, Equatable {
  private(set) var entries: [String: [UUID: Set<UUID>]] = [:]

  /// The sources that refer to `target` through `relationship`.
  func sources(of target: UUID, via relationship: String) -> Set<UUID> {
    entries[relationship]?[target] ?? []
  }

  /// Moves `id`'s entries from what `old` referred to over to what `new` refers to; targets
  /// both refer to keep their entries untouched, so re-saving an object costs no index writes.
  mutating func reindex<Object: ModelObject>(
    _ id: UUID, _ relationships: [Relationship<Object>], removing old: Object?, adding new: Object?
  ) {
    for relationship in relationships {
      var before: [UUID] = []
      if let old { before = relationship.targets(old) }
      var after: [UUID] = []
      if let new { after = relationship.targets(new) }
      guard before != after else { continue }
      let (removed, added) = Self.difference(from: before, to: after)
      for target in removed { entries[relationship.name]?[target]?.remove(id) }
      for target in added {
        entries[relationship.name, default: [:]][target, default: []].insert(id)
      }
    }
  }

  /// The ids only `before` holds and those only `after` holds; short lists are compared
  /// directly, long ones (a big group's participants) through sets.
  static func difference(from before: [UUID], to after: [UUID]) -> (
    removed: [UUID], added: [UUID]
  ) {
    if before.isEmpty || after.isEmpty { return (before, after) }
    guard before.count + after.count > 16 else {
      var removed: [UUID] = []
      for id in before where !after.contains(id) { removed.append(id) }
      var added: [UUID] = []
      for id in after where !before.contains(id) { added.append(id) }
      return (removed, added)
    }
    let (old, new) = (Set(before), Set(after))
    return (before.filter { !new.contains($0) }, after.filter { !old.contains($0) })
  }
}
