import Foundation

/// The local changes of one entity that have not been synchronised yet: what the sync layer
/// still has to push.
public struct LocalChanges<Object: ModelObject>: Sendable, Equatable {
  /// Objects inserted locally that the backend does not have yet.
  public internal(set) var inserted: Set<UUID> = []
  /// For each object, the keys changed locally since they were last synchronised.
  public internal(set) var updatedKeys: [UUID: Set<Object.Key>] = [:]
  /// Objects deleted locally whose deletion the backend has not heard of yet.
  public internal(set) var deleted: Set<UUID> = []
  /// For each object with changed keys, its value as last synchronised: what the backend has,
  /// so a strategy can tell what was added or removed (participants, say).
  public internal(set) var originals: [UUID: Object] = [:]

  /// Creates an empty record.
  public init() {}

  /// Whether nothing is waiting to be pushed.
  public var isEmpty: Bool { inserted.isEmpty && updatedKeys.isEmpty && deleted.isEmpty }

  /// Every object with some local change, in no particular order.
  public var objectIDs: Set<UUID> { inserted.union(updatedKeys.keys).union(deleted) }

  /// The keys of `id` changed locally and not yet synchronised; empty if none.
  public func keys(of id: UUID) -> Set<Object.Key> { updatedKeys[id] ?? [] }

  mutating func recordSave(_ changes: EntityChanges<Object>) {
    for id in changes.inserted.keys {
      inserted.insert(id)
      deleted.remove(id)
    }
    for (id, update) in changes.updated { updatedKeys[id, default: []].formUnion(update.keys) }
    for id in changes.deleted {
      inserted.remove(id)
      updatedKeys[id] = nil
      originals[id] = nil
      deleted.insert(id)
    }
  }
}

/// The local changes of every entity, as the sync context records them.
struct LocalChangeLog: Sendable {
  var users = LocalChanges<User>()
  var connections = LocalChanges<Connection>()
  var conversations = LocalChanges<Conversation>()
  var messages = LocalChanges<Message>()

  mutating func recordSave(_ changes: ChangeSet) {
    users.recordSave(changes.users)
    connections.recordSave(changes.connections)
    conversations.recordSave(changes.conversations)
    messages.recordSave(changes.messages)
  }
}
