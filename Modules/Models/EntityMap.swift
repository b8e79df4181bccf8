/// A value a container keeps for one entity, such as that entity's table or its changes in a save.
protocol EntitySlot: Sendable {
  /// The entity the slot belongs to.
  associatedtype Object: ModelObject
  /// An empty slot.
  init()
}

extension EntitySlot {
  /// Runs `body` on this slot as `Other`, in place, when `Other` is this slot's own type.
  @inline(__always)
  fileprivate mutating func rebound<Other: EntitySlot, Result>(
    as other: Other.Type, _ body: (inout Other) throws -> Result
  ) rethrows -> Result? {
    guard Self.self == Other.self else { return nil }
    return try withUnsafeMutablePointer(to: &self) { pointer in
      try body(&UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: Other.self).pointee)
    }
  }

  /// This slot as `Other`, when `Other` is this slot's own type.
  @inline(__always)
  fileprivate func viewed<Other: EntitySlot>(as other: Other.Type) -> Other? {
    guard Self.self == Other.self else { return nil }
    return unsafeBitCast(self, to: Other.self)
  }
}

/// One slot per entity, of whatever entities were written to: the storage behind tables, edits,
/// change sets and the change log, so that none of them names the entities one by one.
///
/// Slots are changed in place (no copy of a table to change one row), and reading a slot costs a
/// dictionary lookup and a type comparison, without a dynamic cast.
struct EntityMap: Sendable {
  private(set) var slots: [ObjectIdentifier: any EntitySlot] = [:]

  /// The slot of `Slot.Object`, or `nil` if nothing was written for that entity.
  @inline(__always)
  func slot<Slot: EntitySlot>(_ type: Slot.Type) -> Slot? {
    slots[ObjectIdentifier(Slot.Object.self)]?.viewed(as: Slot.self)
  }

  /// The slot of `Slot.Object`, empty if nothing was written for that entity.
  @inline(__always)
  subscript<Slot: EntitySlot>(_ type: Slot.Type) -> Slot {
    slot(type) ?? Slot()
  }

  /// Changes the slot of `Slot.Object` in place, creating it empty first if needed.
  @inline(__always)
  mutating func modify<Slot: EntitySlot, Result>(
    _ type: Slot.Type, _ body: (inout Slot) throws -> Result
  ) rethrows -> Result {
    let key = ObjectIdentifier(Slot.Object.self)
    if let result = try slots[key, default: Slot()].rebound(as: Slot.self, body) {
      return result
    }
    // The key is the entity, and each map holds one kind of slot, so a slot of another type
    // cannot sit here; if it ever did, it is replaced rather than trusted.
    var fresh = Slot()
    let result = try body(&fresh)
    slots[key] = fresh
    return result
  }

  /// Removes the slot of `Slot.Object`.
  mutating func remove<Slot: EntitySlot>(_ type: Slot.Type) {
    slots[ObjectIdentifier(Slot.Object.self)] = nil
  }

  /// Whether there is no slot at all.
  var isEmpty: Bool { slots.isEmpty }

  /// The entity of every slot, ordered by name: for a container to visit only the entities it
  /// holds, rather than ask every entity of a registry for a slot it may not have.
  var objectTypes: [any ModelObject.Type] {
    func objectType<Slot: EntitySlot>(of slot: Slot) -> any ModelObject.Type { Slot.Object.self }
    var types: [any ModelObject.Type] = []
    for slot in slots.values { types.append(objectType(of: slot)) }
    if types.count > 1 { types.sort { $0.entityName < $1.entityName } }
    return types
  }
}
