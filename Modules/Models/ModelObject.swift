import Foundation

/// An entity of Courier's model layer: a value with a stable identity and named keys that the
/// contexts compare, merge and track one by one.
///
/// Courier's entities are ``User``, ``Connection``, ``Conversation`` and ``Message``. What the
/// model layer needs to know of an entity (its name, a field per key, its relationships and its
/// rules) is its ``schema``.
///
/// Objects are `Codable` so that a durable store can keep them; the synthesized conformance
/// names each stored property by its Swift name, so renaming one is a schema change that the
/// store must migrate.
public protocol ModelObject: Sendable, Equatable, Identifiable, Codable where ID == UUID {
  /// The keys of the entity that can change after insertion; identity keys are not among them.
  ///
  /// A stored property outside the keys keeps the value it was first saved with: a save that
  /// replaces the whole object (news that drop a message and bring it back with the server's
  /// time) changes only the keys, in every context and in the store alike.
  associatedtype Key: Hashable, Sendable, CaseIterable, Comparable, RawRepresentable
  where Key.RawValue == String

  /// How the model layer stores, compares, relates and checks objects of this entity.
  static var schema: EntitySchema<Self> { get }
}

extension ModelObject {
  /// The entity's name in messages, errors and stores.
  package static var entityName: EntityName { schema.name }

  /// Reads and writes the value of `key`, for per-key comparison and merging.
  @_specialize(where Self == User)
  @_specialize(where Self == Message)
  @_specialize(where Self == Conversation)
  @_specialize(where Self == Connection)
  package static func field(_ key: Key) -> Field<Self> { schema.field(key) }

  /// The entity's references to other objects.
  package static var relationships: [Relationship<Self>] { schema.relationships }

  /// The rules this object breaks, given its previous saved value and the context it is saved in.
  package func violations(previous: Self?, in context: ModelContext) -> [ValidationRule] {
    Self.schema.violations(self, previous, context)
  }

  /// The rules a local deletion of this object breaks.
  package func deletionViolations(in context: ModelContext) -> [ValidationRule] {
    Self.schema.deletionViolations(self, context)
  }

  /// The keys at which `self` and `other` hold different values.
  @_specialize(where Self == User)
  @_specialize(where Self == Message)
  @_specialize(where Self == Conversation)
  @_specialize(where Self == Connection)
  package func changedKeys(comparedTo other: Self) -> Set<Key> {
    var keys: Set<Key> = []
    for key in Key.allCases where Self.field(key).differs(self, other) { keys.insert(key) }
    return keys
  }

  /// Whether `self` and `other` hold the same value at `key`.
  @_specialize(where Self == User)
  @_specialize(where Self == Message)
  @_specialize(where Self == Conversation)
  @_specialize(where Self == Connection)
  package func hasSameValue(at key: Key, as other: Self) -> Bool {
    !Self.field(key).differs(self, other)
  }

  /// Takes `other`'s value at `key`.
  @_specialize(where Self == User)
  @_specialize(where Self == Message)
  @_specialize(where Self == Conversation)
  @_specialize(where Self == Connection)
  package mutating func copyValue(at key: Key, from other: Self) {
    Self.field(key).copy(&self, other)
  }

  /// Merges `incoming`'s value at `key` into this edit of it, made from `base`: the edit stays,
  /// except that a set-valued key takes the incoming elements the edit did not add or remove.
  package mutating func mergeEdit(at key: Key, base: Self, incoming: Self) {
    Self.field(key).mergeEdit(&self, base, incoming)
  }

  /// Gives up, at a set-valued `key`, what the change from `before` to `after` did.
  ///
  /// Each element the change added or removed that this object still holds as changed, and that
  /// `untouched` says the user did not edit since, takes `incoming`'s value. A key of one value
  /// is left as it is.
  ///
  /// What else differs here, the change did not make, so it stays: a member another request
  /// added is not taken for part of a change that only removed someone.
  package mutating func yieldChange(
    at key: Key, from before: Self, to after: Self, incoming: Self,
    untouched: (SetElement) -> Bool
  ) {
    Self.field(key).yieldChange(&self, before, after, incoming, untouched)
  }

  /// Takes `other`'s value at `key` where `taken` allows it: a key of one value whole if
  /// `taken(nil)`, a set element by element, each that differs and `taken(element)` accepts.
  package mutating func copyValue(
    at key: Key, from other: Self, where taken: (SetElement?) -> Bool
  ) {
    Self.field(key).copyWhere(&self, other, taken)
  }

  /// The elements a set-valued `key` gained or lost between `self` and `other`; none for a key
  /// of one value.
  package func changedElements(at key: Key, comparedTo other: Self) -> [SetElement] {
    Self.field(key).changedElements(self, other)
  }

  /// A reference to this object, for messages and errors.
  public var reference: ObjectReference { ObjectReference(Self.entityName, id) }
}

/// One key of an entity, as a pair of operations: compare two objects at the key, or copy the
/// key's value from one object into another.
package struct Field<Root> {
  let differs: (Root, Root) -> Bool
  let copy: (inout Root, Root) -> Void
  /// Merges an incoming value into an edit of this key made from `base`: the edit stays, except
  /// that a set-valued key takes the incoming elements the edit did not add or remove.
  let mergeEdit: (_ edit: inout Root, _ base: Root, _ incoming: Root) -> Void
  /// Of a set, takes the incoming value of each element the change from `before` to `after`
  /// added or removed, where `current` still holds the change and the user did not touch it.
  let yieldChange:
    (
      _ current: inout Root, _ before: Root, _ after: Root, _ incoming: Root,
      _ untouched: (SetElement) -> Bool
    ) -> Void
  /// Of a set, the elements that differ between two values.
  let changedElements: (Root, Root) -> [SetElement]
  /// Copies what `taken` allows of a value: a key of one value whole if `taken(nil)`, a set
  /// element by element.
  let copyWhere: (_ target: inout Root, _ source: Root, _ taken: (SetElement?) -> Bool) -> Void
  /// Whether the key holds a set.
  package let holdsSet: Bool

  /// Creates the field for a stored property, read by `get` and written by `set`.
  ///
  /// The closures reach the property directly: a key path here would be projected at run time
  /// on every comparison and copy, which every save, merge and plan makes per object and key.
  package init<Value: Equatable>(
    get: @escaping (Root) -> Value, set: @escaping (inout Root, Value) -> Void
  ) {
    differs = { get($0) != get($1) }
    copy = { set(&$0, get($1)) }
    mergeEdit = { _, _, _ in }
    yieldChange = { _, _, _, _, _ in }
    changedElements = { _, _ in [] }
    copyWhere = { target, source, taken in if taken(nil) { set(&target, get(source)) } }
    holdsSet = false
  }

  /// Creates the field for a stored set, read by `get` and written by `set`, which merges
  /// element by element.
  ///
  /// An edit of one element made on a copy the server has changed since keeps the user's own
  /// additions and removals and takes the server's for every other element: adding Cy to a
  /// group whose Bob the server removed meanwhile does not bring Bob back.
  package init<Element: Hashable & Sendable>(
    get: @escaping (Root) -> Set<Element>, set: @escaping (inout Root, Set<Element>) -> Void
  ) {
    differs = { get($0) != get($1) }
    copy = { set(&$0, get($1)) }
    mergeEdit = { edit, base, incoming in
      let mine = get(edit)
      let before = get(base)
      set(
        &edit, get(incoming).subtracting(before.subtracting(mine)).union(mine.subtracting(before)))
    }
    yieldChange = { current, before, after, incoming, untouched in
      let made = get(after)
      let incoming = get(incoming)
      var value = get(current)
      for element in get(before).symmetricDifference(made)
      where value.contains(element) == made.contains(element) && untouched(SetElement(element)) {
        if incoming.contains(element) {
          value.insert(element)
        } else {
          value.remove(element)
        }
      }
      set(&current, value)
    }
    changedElements = { one, other in
      get(one).symmetricDifference(get(other)).map(SetElement.init)
    }
    copyWhere = { target, source, taken in
      let wanted = get(source)
      var value = get(target)
      for element in value.symmetricDifference(wanted) where taken(SetElement(element)) {
        if wanted.contains(element) {
          value.insert(element)
        } else {
          value.remove(element)
        }
      }
      set(&target, value)
    }
    holdsSet = true
  }
}

/// A reference to one object for messages and errors: its entity and id.
public struct ObjectReference: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The object's entity.
  public let entity: EntityName
  /// The object's id.
  public let id: UUID

  /// Creates a reference to the object `id` of `entity`.
  package init(_ entity: EntityName, _ id: UUID) {
    self.entity = entity
    self.id = id
  }

  /// Hashes the id alone: an id names at most one object of each entity (a connection shares
  /// its contact's), so hashing the entity's name too would add cost to every set and
  /// dictionary of references and hardly any spread.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
  }

  /// Reads as `Connection 3f2a…` with the full lowercase id.
  public var description: String { "\(entity.rawValue) \(id.uuidString.lowercased())" }

  /// Orders by entity name, then id.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.entity, lhs.id) < (rhs.entity, rhs.id)
  }
}

/// An enumeration whose cases sort in the order they are declared, so keys list the same way in
/// every message.
public protocol DeclarationOrdered: CaseIterable, Comparable, Hashable {}

extension DeclarationOrdered {
  /// Whether `lhs` is declared before `rhs`.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    let cases = Array(allCases)
    return (cases.firstIndex(of: lhs) ?? 0) < (cases.firstIndex(of: rhs) ?? 0)
  }
}
