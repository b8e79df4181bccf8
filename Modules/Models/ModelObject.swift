import Foundation

/// An entity of Courier's model layer: a value with a stable identity and named keys that the
/// contexts compare, merge and track one by one.
///
/// Only the four entities of this module conform (`User`, `Connection`, `Conversation`,
/// `Message`); their ``EntityDescriptor`` ties each to its place in tables, change sets and the
/// change log.
public protocol ModelObject: Sendable, Equatable, Identifiable where ID == UUID {
  /// The keys of the entity that can change after insertion; identity keys are not among them.
  associatedtype Key: Hashable, Sendable, CaseIterable, Comparable, RawRepresentable
  where Key.RawValue == String

  /// Where this entity lives in tables, change sets and change logs.
  static var entity: EntityDescriptor<Self> { get }

  /// Reads and writes the value of `key`, for per-key comparison and merging.
  static func field(_ key: Key) -> Field<Self>

  /// The rules this object breaks, given its previous saved value and the objects around it.
  func violations(previous: Self?, in lookup: any ModelLookup) -> [ValidationRule]
}

extension ModelObject {
  /// The keys at which `self` and `other` hold different values, in key order.
  public func changedKeys(comparedTo other: Self) -> Set<Key> {
    Set(Key.allCases.filter { Self.field($0).differs(self, other) })
  }
}

/// One key of an entity, as a pair of operations: compare two objects at the key, or copy the
/// key's value from one object into another.
public struct Field<Root> {
  let differs: (Root, Root) -> Bool
  let copy: (inout Root, Root) -> Void

  /// Creates the field for a stored property.
  public init<Value: Equatable>(_ keyPath: WritableKeyPath<Root, Value>) {
    differs = { $0[keyPath: keyPath] != $1[keyPath: keyPath] }
    copy = { $0[keyPath: keyPath] = $1[keyPath: keyPath] }
  }
}

/// Which entity a value belongs to, for messages and errors.
public enum EntityName: String, Sendable, DeclarationOrdered {
  /// ``User``.
  case user = "User"
  /// ``Connection``.
  case connection = "Connection"
  /// ``Conversation``.
  case conversation = "Conversation"
  /// ``Message``.
  case message = "Message"
}

/// An entity's places in the containers of the model layer; created only by this module.
///
/// Unchecked `Sendable`: it holds only key paths to stored properties, which never change. They
/// are stored as plain key paths, not `& Sendable` existentials, because opening an existential
/// on every read made lookups several times slower.
public struct EntityDescriptor<Object: ModelObject>: @unchecked Sendable {
  /// The entity's name.
  public let name: EntityName
  let table: WritableKeyPath<Tables, Table<Object>>
  let changes: WritableKeyPath<ChangeSet, EntityChanges<Object>>
  let edits: WritableKeyPath<PendingEdits, [UUID: Object?]>
  let log: WritableKeyPath<LocalChangeLog, LocalChanges<Object>>
}

/// A reference to one object for messages and errors: its entity and id.
public struct ObjectReference: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The object's entity.
  public let entity: EntityName
  /// The object's id.
  public let id: UUID

  /// Creates a reference to the object `id` of `entity`.
  public init(_ entity: EntityName, _ id: UUID) {
    self.entity = entity
    self.id = id
  }

  /// Reads as `Connection 3f2a…` with the full lowercase id.
  public var description: String { "\(entity.rawValue) \(id.uuidString.lowercased())" }

  /// Orders by entity, then by id.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.entity, lhs.id.uuidString) < (rhs.entity, rhs.id.uuidString)
  }
}

/// An enumeration whose cases sort in the order they are declared, so keys and entities list
/// the same way in every message.
public protocol DeclarationOrdered: CaseIterable, Comparable, Hashable {}

extension DeclarationOrdered {
  /// Whether `lhs` is declared before `rhs`.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    let cases = Array(allCases)
    return (cases.firstIndex(of: lhs) ?? 0) < (cases.firstIndex(of: rhs) ?? 0)
  }
}
