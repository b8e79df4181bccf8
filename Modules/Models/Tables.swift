import Foundation

/// Every object of one entity, by id.
public struct Table<Object: ModelObject>: Sendable, Equatable {
  /// The objects, by id.
  public internal(set) var rows: [UUID: Object] = [:]

  /// Creates an empty table.
  public init() {}
}

/// Every object a store or a context holds, one table per entity, with the indexes that let
/// relationships resolve from both ends without scanning.
public struct Tables: Sendable, Equatable {
  /// The users.
  public internal(set) var users = Table<User>()
  /// The connections, by the other user's id.
  public internal(set) var connections = Table<Connection>()
  /// The conversations.
  public internal(set) var conversations = Table<Conversation>()
  /// The messages, by nonce.
  public internal(set) var messages = Table<Message>()
  /// For each conversation, the messages in it.
  var messagesByConversation: [UUID: Set<UUID>] = [:]
  /// For each user, the conversations they take part in.
  var conversationsByParticipant: [UUID: Set<UUID>] = [:]

  /// Creates empty tables.
  public init() {}

  /// Creates tables holding `objects`.
  public init(_ objects: [any ModelObject]) {
    for object in objects { putExistential(object) }
  }

  /// The object of `type` with `id`, or `nil`.
  public func object<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    self[keyPath: Object.entity.table].rows[id]
  }

  /// How many objects of `type` there are.
  public func count<Object: ModelObject>(of type: Object.Type) -> Int {
    self[keyPath: Object.entity.table].rows.count
  }

  /// The total number of objects of every entity.
  public var totalCount: Int {
    users.rows.count + connections.rows.count + conversations.rows.count + messages.rows.count
  }

  /// Inserts or replaces `object`, keeping the indexes current.
  mutating func put<Object: ModelObject>(_ object: Object) {
    let previous = self[keyPath: Object.entity.table].rows.updateValue(object, forKey: object.id)
    reindex(removing: previous, adding: object)
  }

  /// Removes the object of `type` with `id`, if there is one.
  mutating func remove<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    let previous = self[keyPath: Object.entity.table].rows.removeValue(forKey: id)
    reindex(removing: previous, adding: nil)
  }

  /// Applies a saved change set: inserts, the changed keys of updates, and deletions.
  public mutating func apply(_ changes: ChangeSet) {
    apply(changes.users)
    apply(changes.connections)
    apply(changes.conversations)
    apply(changes.messages)
  }

  private mutating func apply<Object: ModelObject>(_ changes: EntityChanges<Object>) {
    for object in changes.inserted.values { put(object) }
    for update in changes.updated.values {
      guard var row = object(Object.self, id: update.object.id) else {
        put(update.object)
        continue
      }
      for key in update.keys { Object.field(key).copy(&row, update.object) }
      put(row)
    }
    for id in changes.deleted { remove(Object.self, id: id) }
  }

  private mutating func putExistential(_ object: any ModelObject) {
    put(object)
  }

  private mutating func reindex<Object: ModelObject>(removing old: Object?, adding new: Object?) {
    if let old = old as? Message {
      messagesByConversation[old.conversationID]?.remove(old.id)
    }
    if let new = new as? Message {
      messagesByConversation[new.conversationID, default: []].insert(new.id)
    }
    if let old = old as? Conversation {
      for user in old.participantIDs { conversationsByParticipant[user]?.remove(old.id) }
    }
    if let new = new as? Conversation {
      for user in new.participantIDs {
        conversationsByParticipant[user, default: []].insert(new.id)
      }
    }
  }
}
