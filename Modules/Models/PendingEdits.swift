import Foundation

/// One entity's unsaved edits in a context: an object for an insert or an update, `nil` for a
/// deletion.
///
/// Unlike a table, it keeps no index of what the edited objects refer to: edits are many and
/// short-lived (a save or a rollback ends them), and the few reads that ask which objects refer
/// to one go through the entity's edits instead (``referrers(of:via:)``).
struct EditSlot<Object: ModelObject>: EntitySlot {
  private(set) var edits: [UUID: Object?] = [:]

  /// Records `edit` for the object `id`.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  mutating func set(_ edit: Object?, for id: UUID) {
    assign(edit, for: id)
  }

  /// The body of ``set(_:for:)``, apart so that the specialisations sit on a call with no
  /// generic locals.
  private mutating func assign(_ edit: Object?, for id: UUID) {
    edits[id] = .some(edit)
  }

  /// The ids of the edited objects that refer to `target` through `relationship`.
  func referrers(of target: UUID, via relationship: Relationship<Object>) -> [UUID] {
    var ids: [UUID] = []
    for (id, edit) in edits {
      if let edit, relationship.targets(edit).contains(target) { ids.append(id) }
    }
    return ids
  }

  /// Forgets any edit of the object `id`.
  mutating func forget(_ id: UUID) {
    edits[id] = nil
  }
}

/// A context's unsaved edits, by entity.
struct PendingEdits: Sendable {
  private var entities = EntityMap()

  /// The unsaved edits of `type`.
  subscript<Object: ModelObject>(_ type: Object.Type) -> EditSlot<Object> {
    entities[EditSlot<Object>.self]
  }

  /// The unsaved edits of `type` by id, without making an empty slot when there are none.
  func edits<Object: ModelObject>(of type: Object.Type) -> [UUID: Object?] {
    guard !entities.isEmpty else { return [:] }
    return entities.slot(EditSlot<Object>.self)?.edits ?? [:]
  }

  /// The unsaved edit of the object `id`: `nil` if there is none, `.some(nil)` for a deletion.
  ///
  /// Most reads come between saves, when no entity has a slot: they skip the slot lookup and
  /// the generic metadata it costs.
  func edit<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object?? {
    guard !entities.isEmpty else { return nil }
    return entities.slot(EditSlot<Object>.self)?.edits[id]
  }

  /// Changes the unsaved edits of `type` in place.
  mutating func modify<Object: ModelObject, Result>(
    _ type: Object.Type, _ body: (inout EditSlot<Object>) -> Result
  ) -> Result {
    entities.modify(EditSlot<Object>.self, body)
  }

  /// Whether there is no unsaved edit at all.
  var isEmpty: Bool {
    entities.slots.values.allSatisfy { ($0 as? any HoldsEdits)?.hasNoEdits ?? true }
  }

  /// The entities that have a slot of edits (perhaps empty), ordered by name.
  var editedTypes: [any ModelObject.Type] { entities.objectTypes }

  /// Whether there is no unsaved edit of `type`.
  func isEmpty<Object: ModelObject>(_ type: Object.Type) -> Bool {
    guard !entities.isEmpty else { return true }
    return entities.slot(EditSlot<Object>.self)?.edits.isEmpty ?? true
  }
}

/// Asks an entity's edits whether there are any, without knowing the entity statically.
private protocol HoldsEdits {
  var hasNoEdits: Bool { get }
}

extension EditSlot: HoldsEdits {
  var hasNoEdits: Bool { edits.isEmpty }
}
