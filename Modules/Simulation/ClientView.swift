import Foundation
import Models

/// What one place holds of the client's state: a context, or the store; with what is still
/// pending, for the sync context.
struct ClientView: Sendable, Equatable {
  var me: User?
  var users: [UUID: User] = [:]
  var groups: [UUID: Conversation] = [:]
  var conversations: [UUID: Conversation] = [:]
  var connections: [UUID: Connection] = [:]
  var messages: [UUID: Message] = [:]
  /// For each object, the keys changed locally and not pushed.
  var pendingKeys: [ObjectReference: Set<String>] = [:]
  /// Objects inserted or deleted locally and not pushed.
  var pendingInserts: Set<ObjectReference> = []
  var pendingDeletes: Set<ObjectReference> = []
  /// The conversation of each message deleted locally and not pushed.
  var deletedMessageConversations: [UUID: UUID] = [:]
  /// Objects whose change the backend refused for good.
  var failed: Set<ObjectReference> = []
  /// For each group, the members a change of its members is measured from: as last
  /// synchronised when the user last changed them, or for a new group what a creation that may
  /// have reached the backend sent (none if no creation may have).
  var memberBases: [UUID: Set<UUID>] = [:]

  /// The objects `context` sees, with its change log if it keeps one.
  init(_ context: ModelContext) {
    self.init(
      users: context.objects(User.self), conversations: context.objects(Conversation.self),
      connections: context.objects(Connection.self), messages: context.objects(Message.self))
    record(context.localChanges(of: User.self))
    let conversations = context.localChanges(of: Conversation.self)
    record(conversations)
    for group in groups.keys {
      let base: Conversation? =
        if conversations.inserted.contains(group) {
          conversations.backendValue(of: group)
        } else if conversations.keys(of: group).contains(.participantIDs) {
          conversations.editBases[group] ?? conversations.originals[group]
        } else {
          groups[group]
        }
      if let base { memberBases[group] = base.participantIDs }
    }
    record(context.localChanges(of: Connection.self))
    let messages = context.localChanges(of: Message.self)
    record(messages)
    for id in messages.deleted {
      deletedMessageConversations[id] = messages.originals[id]?.conversationID
    }
  }

  /// The objects a store holds.
  init(_ tables: Tables) {
    self.init(
      users: Array(tables.table(User.self).rows.values),
      conversations: Array(tables.table(Conversation.self).rows.values),
      connections: Array(tables.table(Connection.self).rows.values),
      messages: Array(tables.table(Message.self).rows.values))
  }

  private init(
    users: [User], conversations: [Conversation], connections: [Connection], messages: [Message]
  ) {
    for user in users {
      self.users[user.id] = user
      if user.isSelf { me = user }
    }
    for conversation in conversations {
      self.conversations[conversation.id] = conversation
      if conversation.kind == .group { groups[conversation.id] = conversation }
    }
    for connection in connections { self.connections[connection.id] = connection }
    for message in messages { self.messages[message.id] = message }
  }

  private mutating func record<Object: ModelObject>(_ changes: LocalChanges<Object>) {
    for id in changes.objectIDs.union(changes.failures.keys) {
      let reference = ObjectReference(Object.entityName, id)
      let keys = Set(changes.keys(of: id).map(\.rawValue))
      if !keys.isEmpty { pendingKeys[reference] = keys }
      if changes.inserted.contains(id) { pendingInserts.insert(reference) }
      if changes.deleted.contains(id) { pendingDeletes.insert(reference) }
      if changes.failure(of: id) != nil { failed.insert(reference) }
    }
  }

  /// Whether `key` of `reference` is still to be pushed, or the object's change was refused.
  func isPending(_ reference: ObjectReference, _ key: String) -> Bool {
    pendingKeys[reference]?.contains(key) == true || pendingInserts.contains(reference)
      || failed.contains(reference)
  }

  /// Whether the object `reference` names is here.
  func holds(_ reference: ObjectReference) -> Bool {
    switch reference.entity {
    case .user: users[reference.id] != nil
    case .conversation: conversations[reference.id] != nil
    case .connection: connections[reference.id] != nil
    case .message: messages[reference.id] != nil
    default: false
    }
  }

  /// The first few objects that differ between this view (`here`) and `other` (`there`), for a
  /// report.
  func differences(from other: ClientView, limit: Int = 5) -> String {
    func compare<Value: Equatable>(_ entity: String, _ here: [UUID: Value], _ there: [UUID: Value])
      -> [String]
    {
      Set(here.keys).union(there.keys).sorted().compactMap { id in
        switch (here[id], there[id]) {
        case (nil, _?): "\(entity) \(id) only there"
        case (_?, nil): "\(entity) \(id) only here"
        case (let mine?, let theirs?) where mine != theirs:
          "\(entity) \(id) differs: \(mine) vs \(theirs)"
        default: nil
        }
      }
    }
    let all =
      compare("user", users, other.users)
      + compare("conversation", conversations, other.conversations)
      + compare("connection", connections, other.connections)
      + compare("message", messages, other.messages)
    return all.prefix(limit).joined(separator: ", ")
  }

  /// The objects only, without what is pending: what two places must agree on.
  var objectsOnly: ClientView {
    var view = self
    view.pendingKeys = [:]
    view.pendingInserts = []
    view.pendingDeletes = []
    view.deletedMessageConversations = [:]
    view.failed = []
    view.memberBases = [:]
    return view
  }
}
