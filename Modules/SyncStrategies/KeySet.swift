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
  public var names: [String] { storage.names }

  /// The keys of `Object`.
  public init<Object: ModelObject>(_ keys: Set<Object.Key>, of type: Object.Type) {
    storage = TypedKeys<Object>(keys: keys)
  }

  /// No keys, as for an insert or a deletion.
  public static let none = KeySet(Set<User.Key>(), of: User.self)

  /// The keys as `Object`'s, or `nil` if they belong to another entity.
  public func typed<Object: ModelObject>(_ type: Object.Type) -> Set<Object.Key>? {
    (storage as? TypedKeys<Object>)?.keys
  }

  /// Whether there are no keys.
  public var isEmpty: Bool { storage.isEmpty }

  /// The names, comma-separated.
  public var description: String { names.joined(separator: ", ") }

  /// Key sets are equal when they name the same keys.
  public static func == (lhs: KeySet, rhs: KeySet) -> Bool { lhs.names == rhs.names }

  /// Hashes the names.
  public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}

/// Keys of some entity; the names are worked out only when asked for, since most key sets are
/// made for planning and never shown.
private protocol KeyStorage: Sendable {
  var names: [String] { get }
  var isEmpty: Bool { get }
}

private struct TypedKeys<Object: ModelObject>: KeyStorage {
  let keys: Set<Object.Key>

  var names: [String] { keys.sorted().map(\.rawValue) }
  var isEmpty: Bool { keys.isEmpty }
}
