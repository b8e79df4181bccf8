import Foundation

/// The changes one save made to one entity: objects inserted, objects updated with exactly the
/// keys that changed, and ids deleted.
public struct EntityChanges<Object: ModelObject>: Sendable, Equatable {
  /// An updated object with the keys whose values changed in the save.
  public struct Update: Sendable, Equatable {
    /// The object as saved.
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

  /// Creates an empty set of changes.
  public init() {}

  /// Whether nothing changed.
  public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

  /// How many objects changed.
  public var count: Int { inserted.count + updated.count + deleted.count }

  /// The keys that changed on the object `id`, or `nil` if it was not updated.
  public func changedKeys(of id: UUID) -> Set<Object.Key>? { updated[id]?.keys }
}

/// What one save of a context changed, entity by entity; the other context merges it.
public struct ChangeSet: Sendable, Equatable, CustomStringConvertible {
  /// The context whose save produced the changes.
  public internal(set) var origin: ContextRole
  /// Changes to users.
  public internal(set) var users = EntityChanges<User>()
  /// Changes to connections.
  public internal(set) var connections = EntityChanges<Connection>()
  /// Changes to conversations.
  public internal(set) var conversations = EntityChanges<Conversation>()
  /// Changes to messages.
  public internal(set) var messages = EntityChanges<Message>()

  /// Creates an empty change set from `origin`.
  public init(origin: ContextRole) {
    self.origin = origin
  }

  /// The changes to the entity of `type`.
  public func changes<Object: ModelObject>(to type: Object.Type) -> EntityChanges<Object> {
    self[keyPath: Object.entity.changes]
  }

  /// Whether the save changed nothing.
  public var isEmpty: Bool { count == 0 }

  /// How many objects changed, across entities.
  public var count: Int {
    users.count + connections.count + conversations.count + messages.count
  }

  /// A one-line summary such as `ui save: User +1 ~2 -0, Message +3 ~0 -0`, listing only the
  /// entities that changed.
  public var description: String {
    let parts = [
      summary(of: users), summary(of: connections), summary(of: conversations),
      summary(of: messages),
    ]
    .compactMap { $0 }
    return "\(origin) save: " + (parts.isEmpty ? "nothing" : parts.joined(separator: ", "))
  }

  private func summary<Object: ModelObject>(of changes: EntityChanges<Object>) -> String? {
    guard !changes.isEmpty else { return nil }
    return "\(Object.entity.name.rawValue) +\(changes.inserted.count) ~\(changes.updated.count) "
      + "-\(changes.deleted.count)"
  }
}

/// Which of a stack's two contexts something happened in.
public enum ContextRole: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The user interface's context, on the main actor; its saves are local changes to push.
  case ui
  /// The synchronisation context, on its own actor; its saves carry what the server said.
  case sync

  /// The role's name.
  public var description: String { rawValue }
}
