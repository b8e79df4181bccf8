import Foundation

/// The changes one save made to one entity: objects inserted, objects updated with exactly the
/// keys that changed, and ids deleted.
public struct EntityChanges<Object: ModelObject>: Sendable, Equatable {
  /// An updated object with the keys whose values changed in the save.
  public struct Update: Sendable, Equatable {
    /// The object as saved: as it was, with the changed keys' new values (fields outside the
    /// keys keep what was saved first).
    public let object: Object
    /// The keys that changed.
    public let keys: Set<Object.Key>
  }

  /// The inserted objects, by id.
  public internal(set) var inserted: [UUID: Object] = [:]
  /// The updated objects, by id.
  public internal(set) var updated: [UUID: Update] = [:]
  /// The ids of the deleted objects.
  public internal(set) var deleted: Set<UUID> = []
  /// Each updated and deleted object of a paged entity (``EntitySchema/parent``) as the saving
  /// context held it before the save.
  ///
  /// A context that has not read one of them takes it from here rather than from the store,
  /// which already holds the save: until the context merges the save, the object is as it was.
  package internal(set) var before: [UUID: Object] = [:]

  /// Creates an empty set of changes.
  package init() {}

  /// Whether nothing changed.
  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

  /// How many objects changed.
  package var count: Int { inserted.count + updated.count + deleted.count }

  /// The keys that changed on the object `id`, or `nil` if it was not updated.
  public func changedKeys(of id: UUID) -> Set<Object.Key>? { updated[id]?.keys }

  /// The ids of every object that changed.
  public var ids: Set<UUID> { Set(inserted.keys).union(updated.keys).union(deleted) }

  /// Changes are equal when they insert, update and delete the same objects; what the objects
  /// were before the save follows from the state it was made on.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.inserted == rhs.inserted && lhs.updated == rhs.updated && lhs.deleted == rhs.deleted
  }
}

extension EntityChanges: EntitySlot {}

/// One entity's changes in a change set, whatever the entity: open it with a generic function
/// to get the typed ``EntityChanges`` back.
protocol AnyEntityChanges: EntitySlot {
  /// The changes, typed.
  var typed: EntityChanges<Object> { get }
}

extension EntityChanges: AnyEntityChanges {
  var typed: Self { self }
}

/// What one save of a context changed, entity by entity; the other context merges it.
public struct ChangeSet: Sendable, Equatable, CustomStringConvertible {
  /// The context whose save produced the changes.
  package internal(set) var origin: ContextRole
  private var entities = EntityMap()
  /// The changes of every entity that has some, in entity-name order, kept current by
  /// ``modify(_:_:)``: a save and its merges go through them many times.
  private(set) var entityChanges: [any AnyEntityChanges] = []
  /// The entity of each of ``entityChanges``, in the same order, to find an entity's place
  /// without opening the changes.
  private var entityNames: [EntityName] = []
  /// Every object the save touched, kept current as the save is built: the store's records, the
  /// change log and each merge ask for it.
  package private(set) var references: Set<ObjectReference> = []

  /// Creates an empty change set from `origin`.
  package init(origin: ContextRole) {
    self.origin = origin
  }

  /// A change set from `origin` that inserts `objects`, as a store writes new objects: for
  /// filling a store in tests and benchmarks without going through a context.
  package init<Object: ModelObject>(origin: ContextRole, inserting objects: [Object]) {
    self.init(origin: origin)
    modify(Object.self) { changes in
      changes.inserted.reserveCapacity(objects.count)
      for object in objects { changes.inserted[object.id] = object }
    }
  }

  /// The changes to the entity of `type`, empty if the save did not touch it.
  public subscript<Object: ModelObject>(_ type: Object.Type) -> EntityChanges<Object> {
    entities[EntityChanges<Object>.self]
  }

  /// Changes the changes to the entity of `type` in place.
  mutating func modify<Object: ModelObject, Result>(
    _ type: Object.Type, _ body: (inout EntityChanges<Object>) -> Result
  ) -> Result {
    let result = entities.modify(EntityChanges<Object>.self, body)
    let changes = entities[EntityChanges<Object>.self]
    let name = Object.entityName
    if let index = entityNames.firstIndex(of: name) {
      entityChanges.remove(at: index)
      entityNames.remove(at: index)
      references = references.filter { $0.entity != name }
    }
    if !changes.isEmpty {
      let place = entityNames.firstIndex { $0 > name } ?? entityNames.endIndex
      entityChanges.insert(changes, at: place)
      entityNames.insert(name, at: place)
      references.reserveCapacity(references.count + changes.count)
      for id in changes.inserted.keys { references.insert(ObjectReference(name, id)) }
      for id in changes.updated.keys { references.insert(ObjectReference(name, id)) }
      for id in changes.deleted { references.insert(ObjectReference(name, id)) }
    }
    return result
  }

  /// Whether the save changed nothing.
  public var isEmpty: Bool { entityChanges.isEmpty }

  /// How many objects changed, across entities.
  public var count: Int { entityChanges.reduce(0) { $0 + Self.count(of: $1) } }

  /// A one-line summary such as `ui save: Message +3 ~0 -0, User +1 ~2 -0`, listing only the
  /// entities that changed, by name.
  public var description: String {
    func summary<Changes: AnyEntityChanges>(_ changes: Changes) -> String {
      let typed = changes.typed
      return "\(Changes.Object.entityName) +\(typed.inserted.count) ~\(typed.updated.count) "
        + "-\(typed.deleted.count)"
    }
    let parts = entityChanges.map { summary($0) }
    return "\(origin) save: " + (parts.isEmpty ? "nothing" : parts.joined(separator: ", "))
  }

  /// Change sets are equal when they come from the same context and hold the same changes; an
  /// entity with no changes equals one that was never touched.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    func same<Changes: AnyEntityChanges>(_ changes: Changes, in other: ChangeSet) -> Bool {
      changes.typed == other[Changes.Object.self]
    }
    let left = lhs.entityChanges
    return lhs.origin == rhs.origin && left.count == rhs.entityChanges.count
      && left.allSatisfy { same($0, in: rhs) }
  }

  private static func count<Changes: AnyEntityChanges>(of changes: Changes) -> Int {
    changes.typed.count
  }

}

/// Which of a stack's two contexts something happened in.
public enum ContextRole: String, Sendable, Hashable, CaseIterable {
  /// The user interface's context, on the main actor; its saves are local changes to push.
  case ui
  /// The synchronisation context, on its own actor; its saves carry what the server said.
  case sync
}
