import Foundation
import Seams

/// A working copy of a stack's objects: reads see this context's unsaved edits, `save()` checks
/// the rules and commits the edits as one change set, and the other context's saves are merged in
/// key by key.
///
/// A context is not `Sendable`: the UI context lives on the main actor (``UIContext``) and the
/// sync context inside its actor (``SyncContext/perform(_:)``).
///
/// ## Merge policy
/// Local edits win until they are pushed:
/// - The UI context keeps its unsaved edit of a key when the sync context saves a value for it;
///   the next UI save writes the edit over it.
/// - The sync context takes every key the UI context saved, even over its own unsaved edits,
///   and records it as a local change to push.
/// - ``applyRemote(_:)`` (a server value in the sync context) leaves alone every key with a
///   local change that has not been pushed yet.
/// - A deletion wins over unsaved edits of the deleted object.
public final class ModelContext: ModelLookup {
  /// Which of the stack's contexts this is.
  public let role: ContextRole
  let coordinator: StoreCoordinator
  let broadcaster: ChangeBroadcaster
  private let uuids: UUIDSource
  private(set) var committed: Tables
  private var edits = PendingEdits()
  /// For each conversation, the messages inserted here and not saved yet: lets
  /// ``messages(in:)`` find them without scanning every unsaved edit.
  private(set) var unsavedMessagesByConversation: [UUID: Set<UUID>] = [:]
  private var remoteEdits: Set<ObjectReference> = []
  private var log = LocalChangeLog() {
    didSet { localChangeVersion &+= 1 }
  }

  /// A number that changes whenever the local changes of this context change, so the sync
  /// layer can tell when a plan made from them is out of date.
  public private(set) var localChangeVersion = 0

  init(
    role: ContextRole, coordinator: StoreCoordinator, tables: Tables, uuids: UUIDSource,
    broadcaster: ChangeBroadcaster = ChangeBroadcaster()
  ) {
    self.broadcaster = broadcaster
    self.role = role
    self.coordinator = coordinator
    self.committed = tables
    self.uuids = uuids
  }

  // MARK: - Reading

  /// The object of `type` with `id` as this context sees it, unsaved edits included.
  public func object<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    if let edit = self[edits: Object.self][id] { return edit }
    return committed.object(type, id: id)
  }

  /// Every object of `type` this context sees, ordered by id.
  public func objects<Object: ModelObject>(_ type: Object.Type) -> [Object] {
    var rows = committed[keyPath: Object.entity.table].rows
    for (id, edit) in self[edits: Object.self] { rows[id] = edit }
    return rows.values.sorted { $0.id.uuidString < $1.id.uuidString }
  }

  /// How many objects of `type` this context sees.
  public func count<Object: ModelObject>(of type: Object.Type) -> Int {
    var count = committed.count(of: type)
    for (id, edit) in self[edits: Object.self] {
      let saved = committed.object(type, id: id) != nil
      count += (edit != nil ? 1 : 0) - (saved ? 1 : 0)
    }
    return count
  }

  /// Whether the context has edits that are not saved.
  public var hasChanges: Bool { !edits.isEmpty }

  /// A new id for an object created locally, from the stack's UUID source.
  public func makeID() -> UUID { uuids.next() }

  // MARK: - Editing

  /// Adds `object`; it is saved with the next ``save()``.
  ///
  /// - Throws: ``ContextError/alreadyExists(_:)`` if an object with its id exists.
  public func insert<Object: ModelObject>(_ object: Object) throws(ContextError) {
    guard self.object(Object.self, id: object.id) == nil else {
      throw .alreadyExists(ObjectReference(Object.entity.name, object.id))
    }
    self[edits: Object.self][object.id] = .some(object)
    noteUnsavedInsert(object)
  }

  /// Changes the object of `type` with `id` through `change`, and returns the changed object.
  ///
  /// - Throws: ``ContextError/notFound(_:)`` if there is no such object.
  @discardableResult
  public func update<Object: ModelObject>(
    _ type: Object.Type, id: UUID, _ change: (inout Object) -> Void
  ) throws(ContextError) -> Object {
    guard var object = object(type, id: id) else {
      throw .notFound(ObjectReference(Object.entity.name, id))
    }
    change(&object)
    self[edits: Object.self][id] = .some(object)
    return object
  }

  /// Deletes the object of `type` with `id` at the next save.
  ///
  /// - Throws: ``ContextError/notFound(_:)`` if there is no such object.
  public func delete<Object: ModelObject>(_ type: Object.Type, id: UUID) throws(ContextError) {
    guard object(type, id: id) != nil else {
      throw .notFound(ObjectReference(Object.entity.name, id))
    }
    self[edits: Object.self][id] = .some(nil)
  }

  /// Drops every unsaved edit, returning to the last saved state.
  public func rollback() {
    edits = PendingEdits()
    unsavedMessagesByConversation = [:]
    remoteEdits = []
  }

  // MARK: - Saving

  /// Checks the rules and commits the unsaved edits as one change set, which the other context
  /// then merges.
  ///
  /// Saving with no edits commits nothing and returns an empty change set.
  ///
  /// - Throws: ``SaveError/invalid(_:)`` naming every object and rule broken; the context is
  ///   then rolled back, so nothing is half-applied.
  @discardableResult
  public func save() throws(SaveError) -> ChangeSet {
    let result = coordinator.save(from: role) { mail in
      for changes in mail { merge(changes) }
      return pendingChangeSet()
    }
    switch result {
    case .failure(let error):
      rollback()
      throw error
    case .success(let changes):
      committed.apply(changes)
      rollback()
      if !changes.isEmpty {
        broadcaster.publish(ContextChange(context: role, kind: .saved, changes: changes))
      }
      return changes
    }
  }

  /// Every change of this context: its saves and its merges, from now on.
  public func changes() -> AsyncStream<ContextChange> { broadcaster.subscribe() }

  /// Merges everything the other context saved since the last merge.
  func mergeIncoming() {
    for changes in coordinator.takeInbox(of: role) { merge(changes) }
  }

  private func merge(_ changes: ChangeSet) {
    if role == .sync && changes.origin == .ui {
      recordOriginals(changes.users)
      recordOriginals(changes.connections)
      recordOriginals(changes.conversations)
      recordOriginals(changes.messages)
    }
    merge(changes.users)
    merge(changes.connections)
    merge(changes.conversations)
    merge(changes.messages)
    committed.apply(changes)
    if role == .sync && changes.origin == .ui { log.recordSave(changes) }
    broadcaster.publish(ContextChange(context: role, kind: .merged, changes: changes))
  }

  /// Keeps the synchronised value of each object a UI save changes for the first time.
  private func recordOriginals<Object: ModelObject>(_ changes: EntityChanges<Object>) {
    for id in changes.updated.keys where log[keyPath: Object.entity.log].originals[id] == nil {
      guard !log[keyPath: Object.entity.log].inserted.contains(id),
        let original = committed.object(Object.self, id: id)
      else { continue }
      log[keyPath: Object.entity.log].originals[id] = original
    }
  }

  /// Reconciles unsaved edits with incoming changes before they are applied to `committed`.
  private func merge<Object: ModelObject>(_ changes: EntityChanges<Object>) {
    // Most merges meet no unsaved edit of the entity: nothing to reconcile.
    guard !self[edits: Object.self].isEmpty else { return }
    let incomingWins = role == .sync
    for id in changes.deleted { self[edits: Object.self][id] = nil }
    let incoming = changes.updated.mapValues { ($0.object, $0.keys) }
      .merging(changes.inserted.mapValues { ($0, Set(Object.Key.allCases)) }) { $1 }
    for (id, (object, keys)) in incoming {
      guard case .some(.some(var edit)) = self[edits: Object.self][id] else { continue }
      let base = committed.object(Object.self, id: id)
      for key in keys {
        let field = Object.field(key)
        let editedHere = base.map { field.differs(edit, $0) } ?? true
        if incomingWins || !editedHere { field.copy(&edit, object) }
      }
      self[edits: Object.self][id] = .some(edit)
    }
  }

  private func pendingChangeSet() -> Result<ChangeSet, SaveError> {
    var changes = ChangeSet(origin: role)
    var failures: [ValidationFailure] = []
    collect(User.self, into: &changes, failures: &failures)
    collect(Connection.self, into: &changes, failures: &failures)
    collect(Conversation.self, into: &changes, failures: &failures)
    collect(Message.self, into: &changes, failures: &failures)
    for id in changes.conversations.deleted {
      for message in messages(inConversation: id) {
        failures.append(
          ValidationFailure(
            object: ObjectReference(.message, message.id), rule: .messageNeedsConversation(id)))
      }
    }
    guard failures.isEmpty else {
      return .failure(.invalid(failures.sorted { $0.object < $1.object }))
    }
    return .success(changes)
  }

  private func collect<Object: ModelObject>(
    _ type: Object.Type, into changes: inout ChangeSet, failures: inout [ValidationFailure]
  ) {
    for (id, edit) in self[edits: Object.self] {
      let previous = committed.object(type, id: id)
      let reference = ObjectReference(Object.entity.name, id)
      guard let edit else {
        if previous != nil { changes[keyPath: Object.entity.changes].deleted.insert(id) }
        continue
      }
      let rulesBase = remoteEdits.contains(reference) ? nil : previous
      for rule in edit.violations(previous: rulesBase, in: self) {
        failures.append(ValidationFailure(object: reference, rule: rule))
      }
      if let previous {
        let keys = edit.changedKeys(comparedTo: previous)
        guard !keys.isEmpty else { continue }
        changes[keyPath: Object.entity.changes].updated[id] = .init(object: edit, keys: keys)
      } else {
        changes[keyPath: Object.entity.changes].inserted[id] = edit
      }
    }
  }

  // MARK: - Changes from the server (sync context)

  /// Takes the server's values of `object` into this context, except for keys with a local change
  /// that has not been pushed yet; the object is inserted if it is new here.
  ///
  /// Status-transition rules do not apply to what the server says; the rules about the object's
  /// own state still do at save.
  public func applyRemote<Object: ModelObject>(_ object: Object) {
    let reference = ObjectReference(Object.entity.name, object.id)
    remoteEdits.insert(reference)
    guard var current = self.object(Object.self, id: object.id) else {
      self[edits: Object.self][object.id] = .some(object)
      noteUnsavedInsert(object)
      return
    }
    let changes = log[keyPath: Object.entity.log]
    guard !changes.inserted.contains(object.id) else { return }
    let dirty = changes.keys(of: object.id)
    for key in Object.Key.allCases where !dirty.contains(key) {
      Object.field(key).copy(&current, object)
    }
    self[edits: Object.self][object.id] = .some(current)
  }

  /// Deletes the object the server deleted, whatever its local changes.
  public func applyRemoteDeletion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard object(type, id: id) != nil else { return }
    self[edits: Object.self][id] = .some(nil)
    log[keyPath: Object.entity.log].inserted.remove(id)
    log[keyPath: Object.entity.log].updatedKeys[id] = nil
    log[keyPath: Object.entity.log].originals[id] = nil
  }

  /// The local changes of `type` that are not synchronised yet.
  ///
  /// The sync context records them from every UI save and keeps them across saves until they are
  /// cleared; in the UI context they are always empty. Reading it costs as much as the number of changed objects, not the number of objects.
  public func localChanges<Object: ModelObject>(of type: Object.Type) -> LocalChanges<Object> {
    log[keyPath: Object.entity.log]
  }

  /// Marks `keys` of the object `id` as synchronised.
  public func clearLocalChanges<Object: ModelObject>(
    _ type: Object.Type, id: UUID, keys: Set<Object.Key>
  ) {
    guard var remaining = log[keyPath: Object.entity.log].updatedKeys[id] else { return }
    remaining.subtract(keys)
    log[keyPath: Object.entity.log].updatedKeys[id] = remaining.isEmpty ? nil : remaining
    if remaining.isEmpty { log[keyPath: Object.entity.log].originals[id] = nil }
  }

  /// Records that the backend now holds `object`'s values for `keys` (they were pushed), so the
  /// synchronised value of those keys is theirs, whether or not they changed again since.
  public func recordSynchronised<Object: ModelObject>(_ object: Object, keys: Set<Object.Key>) {
    guard log[keyPath: Object.entity.log].updatedKeys[object.id] != nil else { return }
    var original = log[keyPath: Object.entity.log].originals[object.id] ?? object
    for key in keys { Object.field(key).copy(&original, object) }
    log[keyPath: Object.entity.log].originals[object.id] = original
  }

  /// Marks the insertion of the object `id` as synchronised: the backend has it now.
  public func clearLocalInsertion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    log[keyPath: Object.entity.log].inserted.remove(id)
  }

  /// Marks the deletion of the object `id` as synchronised: the backend deleted it too.
  public func clearLocalDeletion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    log[keyPath: Object.entity.log].deleted.remove(id)
  }

  // MARK: - Storage access

  // `_modify` edits the dictionary in place: a get-then-set would copy every unsaved edit on
  // each change, which made saving 10,000 edits quadratic.
  private subscript<Object: ModelObject>(edits type: Object.Type) -> [UUID: Object?] {
    get { edits[keyPath: Object.entity.edits] }
    _modify { yield &edits[keyPath: Object.entity.edits] }
  }

  private func noteUnsavedInsert<Object: ModelObject>(_ object: Object) {
    if let message = object as? Message {
      unsavedMessagesByConversation[message.conversationID, default: []].insert(message.id)
    }
  }

  /// The ids of the objects of `type` with unsaved edits.
  func editedIDs<Object: ModelObject>(_ type: Object.Type) -> Set<UUID> {
    Set(self[edits: type].keys)
  }
}
