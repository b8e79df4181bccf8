import Models

/// The keys of one object that a change concerns, typed by their entity but storable next to
/// the keys of any other entity.
///
/// ```swift
/// item.keys.typed(User.self)   // [.name, .accentID]
/// item.keys.names              // ["name", "accentID"], for display
/// ```
public struct KeySet: Sendable, Hashable, CustomStringConvertible {
  private let storage: any KeyStorage
  /// The keys' names in declaration order, for display.
  public let names: [String]

  /// The keys of `Object`.
  public init<Object: ModelObject>(_ keys: Set<Object.Key>, of type: Object.Type) {
    storage = TypedKeys<Object>(keys: keys)
    names = keys.sorted().map(\.rawValue)
  }

  /// No keys, as for an insert or a deletion.
  public static let none = KeySet(Set<User.Key>(), of: User.self)

  /// The keys as `Object`'s, or `nil` if they belong to another entity.
  public func typed<Object: ModelObject>(_ type: Object.Type) -> Set<Object.Key>? {
    (storage as? TypedKeys<Object>)?.keys
  }

  /// Whether there are no keys.
  public var isEmpty: Bool { names.isEmpty }

  /// The names, comma-separated.
  public var description: String { names.joined(separator: ", ") }

  /// Key sets are equal when they name the same keys.
  public static func == (lhs: KeySet, rhs: KeySet) -> Bool { lhs.names == rhs.names }

  /// Hashes the names.
  public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}

private protocol KeyStorage: Sendable {}

private struct TypedKeys<Object: ModelObject>: KeyStorage {
  let keys: Set<Object.Key>
}
