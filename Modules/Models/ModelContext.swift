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
/// - `applyRemote(_:)` (a server value in the sync context) leaves alone every key with a
///   local change that has not been pushed yet.
/// - A deletion wins over unsaved edits of the deleted object.
public final class ModelContext {
  /// Which of the stack's contexts this is.
  public let role: ContextRole
  /// The entities this context knows; edits of other entities are refused.
  package let entities: EntityRegistry
  let coordinator: StoreCoordinator
  let broadcaster: ChangeBroadcaster
  let logger = CourierLogger(category: "models")
  private let uuids: UUIDSource
  /// The objects as this context last saved or merged them: every object of an entity that is
  /// not paged, and of a paged entity (``EntitySchema/parent``), those read or changed here.
  private(set) var committed: Tables {
    didSet { selfUserCache = nil }
  }
  /// How reads of a paged entity reach the store at this moment.
  var storeReads = StoreReads.throughCoordinator
  /// How many objects of a paged entity this context may hold, beyond those it needs, after a
  /// save or a merge before it lets go of them (``releasePagedObjects()``).
  let pagedObjectLimit: Int
  /// How many objects of each paged entity the last release kept.
  private var heldAfterRelease: [EntityName: Int] = [:]
  /// How many objects of a paged entity a context holds at most by default: a few screens.
  package static let defaultPagedObjectLimit = 1_000
  var edits = PendingEdits() {
    didSet { selfUserCache = nil }
  }
  /// The self user as last found, until the edits or the saved objects change; `nil` when not
  /// looked up since.
  var selfUserCache: User??
  /// Objects whose unsaved edits came from the server, so transition rules do not apply to them.
  var remoteEdits: Set<ObjectReference> = []
  /// What the server was heard to hold for objects some caller listens to; never saved.
  var serverTrails = EntityMap()
  /// The news being applied, while some are: what they are heard at
  /// (``endServerTrail(of:id:from:)``); `nil` outside news, where what the context takes is its
  /// own (a settled answer's values), which no request hears.
  package var news: HeardNews?
  /// The local changes still to push; only the sync context records any.
  private(set) var log: LocalChangeLog
  /// Objects whose change-log record changed since the last save; the next save writes them.
  private(set) var unsavedLogRecords: Set<ObjectReference> = []
  /// The sync layer's metadata.
  private(set) var metadata: SyncMetadata
  /// The metadata as the store holds it: a rollback goes back to it, so that a cursor moved
  /// past news whose save failed is not ahead of what was applied.
  private var savedMetadata: SyncMetadata
  /// Whether the metadata changed since the last save.
  var metadataChanged: Bool { metadata != savedMetadata }
  /// The serial of the last write-ahead mark this context gave or loaded; only grows, so no two
  /// records share a mark, not even one loaded and one written after.
  private var lastWriteAheadSerial: Int

  /// A number that changes whenever the local changes of this context change, so the sync
  /// layer can tell when a plan made from them is out of date.
  package private(set) var localChangeVersion = 0
  /// How many times a pending deletion of each object left the change log or was restarted; see
  /// ``endedDeletions(of:)``.
  var endedDeletionCounts: [ObjectReference: Int] = [:]

  init(
    role: ContextRole, entities: EntityRegistry, coordinator: StoreCoordinator,
    state: StoredState, uuids: UUIDSource, broadcaster: ChangeBroadcaster = ChangeBroadcaster(),
    pagedObjectLimit: Int = ModelContext.defaultPagedObjectLimit
  ) {
    self.pagedObjectLimit = max(pagedObjectLimit, 0)
    self.broadcaster = broadcaster
    self.role = role
    self.entities = entities
    self.coordinator = coordinator
    var tables = state.tables
    tables.removePagedEntities()
    self.committed = tables
    self.uuids = uuids
    // Only the sync context tracks what is still to be pushed.
    self.log =
      role == .sync
      ? LocalChangeLog(records: state.changeLog, entities: entities) : LocalChangeLog()
    self.metadata = state.metadata
    self.savedMetadata = state.metadata
    self.lastWriteAheadSerial = log.largestWriteAheadSerial(entities: entities)
    if role == .sync { holdLoggedObjects() }
  }

  /// Holds each object of a paged entity that the change log inserts or updates, read from the
  /// store.
  ///
  /// The sync context holds what it has still to send from the save that changed it until the
  /// change is acknowledged, after a restart as well as before. An object whose deletion is
  /// pending is gone from the store, and was not held before the restart either.
  private func holdLoggedObjects() {
    func hold<Object: ModelObject>(_ type: Object.Type) {
      guard Object.schema.parent != nil else { return }
      let changes = log[type]
      for id in changes.inserted.union(changes.updatedKeys.keys) {
        _ = holdFromStore(type, id: id)
      }
    }
    for type in entities.types { hold(type) }
  }

  // MARK: - Reading

  /// The object of `type` with `id` as this context sees it, unsaved edits included.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  public func object<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    if let edit = edits.edit(type, id: id) { return edit }
    if let row = committed.object(type, id: id) { return row }
    return Object.schema.parent == nil ? nil : holdFromStore(type, id: id)
  }

  /// The object of `type` with `id` as this context last saved or merged it, without its
  /// unsaved edits.
  ///
  /// An object of a paged entity that this context has not held yet is read from the store,
  /// and held from then on.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  package func savedObject<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    if let row = committed.object(type, id: id) { return row }
    return Object.schema.parent == nil ? nil : holdFromStore(type, id: id)
  }

  /// The saved object of the paged `type` with `id`, which this context does not hold, read
  /// from the store and held from now on.
  private func holdFromStore<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    guard let read = readSaved({ try $0.object(type, id: id) }), let row = read else {
      return nil
    }
    committed.put(row)
    return row
  }

  /// Lets go of the objects of each paged entity once this context holds ``pagedObjectLimit``
  /// more of them than it kept last time, but for those it has unsaved edits of and, in the sync
  /// context, those with a local change: the store holds the others as this context saved or
  /// merged them, and a read brings one back.
  ///
  /// A release keeps what is needed, which may be many (a long queue of messages to send): the
  /// next one waits until the context holds `pagedObjectLimit` more than that, so that the cost
  /// of releasing stays in proportion to what was read.
  func releasePagedObjects() {
    func release<Object: ModelObject>(_ type: Object.Type) {
      guard Object.schema.parent != nil else { return }
      let held = committed.count(of: type)
      let floor = heldAfterRelease[Object.entityName] ?? 0
      guard held > floor + pagedObjectLimit else { return }
      var kept = Set(edits.edits(of: type).keys)
      if role == .sync { kept.formUnion(log[type].objectIDs) }
      committed.keepOnly(kept, of: type)
      heldAfterRelease[Object.entityName] = committed.count(of: type)
    }
    for type in entities.types { release(type) }
  }

  /// What `read` finds in the store among this context's saved objects; `nil`, logged, when the
  /// store fails to read.
  func readSaved<Value>(_ read: (SavedView) throws -> Value) -> Value? {
    do {
      switch storeReads {
      case .throughCoordinator: return try coordinator.read(for: role, read)
      case .duringSave(let view): return try read(view)
      }
    } catch {
      logger.error("could not read the store: \(error)")
      return nil
    }
  }

  /// Every object of `type` this context sees, ordered by id.
  ///
  /// Of messages, which a context holds only as it reads them, this reads every one from the
  /// store: for tests and tools; a screen reads ``latestMessages(in:limit:before:)``.
  public func objects<Object: ModelObject>(_ type: Object.Type) -> [Object] {
    objectsByID(type).values.sorted { $0.id < $1.id }
  }

  /// Every object of `type` this context sees, unsaved edits included, by id.
  ///
  /// For a caller that looks up many objects of one entity, such as a check after every step:
  /// the entity is looked up once, and with no unsaved edits of it the dictionary shares its
  /// storage with the context, so reading it costs no copy of the objects. Of messages, it reads
  /// every one from the store.
  public func objectsByID<Object: ModelObject>(_ type: Object.Type) -> [UUID: Object] {
    let pending = edits.edits(of: type)
    if Object.schema.parent != nil {
      // A paged entity is read whole from the store: a test's check may afford it, a screen
      // reads pages (``latestMessages(in:limit:before:)``).
      var rows = readSaved { try $0.rows(of: type) } ?? [:]
      for (id, edit) in pending { rows[id] = edit }
      return rows
    }
    // Without edits, no loop: even an empty one costs an iterator and its metadata.
    guard !pending.isEmpty else { return committed.rows(of: type) }
    var rows = committed.rows(of: type)
    for (id, edit) in pending { rows[id] = edit }
    return rows
  }

  /// Looks up objects of `type` by id as this context sees them, for a caller that looks up
  /// many: an entity held whole is read once, and a paged entity's objects one by one, never
  /// the whole entity.
  ///
  /// A paged object this context does not hold is read from the store without being held, so
  /// the lookups never change what they look in.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func lookUp<Object: ModelObject>(_ type: Object.Type) -> (UUID) -> Object? {
    guard Object.schema.parent != nil else {
      let rows = objectsByID(type)
      return { rows[$0] }
    }
    let pending = edits.edits(of: type)
    let rows = committed.rows(of: type)
    return { id in
      if let edit = pending[id] { return edit }
      if let row = rows[id] { return row }
      return self.readSaved { try $0.object(type, id: id) } ?? nil
    }
  }

  /// How many objects of `type` this context sees; of messages, counted by reading them all from
  /// the store.
  public func count<Object: ModelObject>(of type: Object.Type) -> Int {
    if Object.schema.parent != nil { return objectsByID(type).count }
    var count = committed.count(of: type)
    for (id, edit) in edits.edits(of: type) {
      let saved = committed.object(type, id: id) != nil
      count += (edit != nil ? 1 : 0) - (saved ? 1 : 0)
    }
    return count
  }

  /// The objects of `type` that refer to `target` through `relationship`, as this context sees
  /// them (unsaved edits included), ordered by id.
  package func objects<Object: ModelObject>(
    _ type: Object.Type, referringTo target: UUID, via relationship: Relationship<Object>
  ) -> [Object] {
    if let parent = Object.schema.parent {
      return pagedObjects(type, referringTo: target, via: relationship, parent: parent)
    }
    var ids = committed.sources(type, referringTo: target, via: relationship.name)
    if !edits.isEmpty(type) { ids.formUnion(edits[type].referrers(of: target, via: relationship)) }
    return ids.compactMap { object(type, id: $0) }
      .filter { relationship.targets($0).contains(target) }
      .sorted { $0.id < $1.id }
  }

  /// The objects of the paged `type` that refer to `target` through `relationship`, ordered by
  /// id: read from the store by place when `relationship` leads to the parent, whole otherwise.
  private func pagedObjects<Object: ModelObject>(
    _ type: Object.Type, referringTo target: UUID, via relationship: Relationship<Object>,
    parent: Relationship<Object>
  ) -> [Object] {
    var found: [UUID: Object]
    if relationship.name == parent.name {
      let children = readSaved {
        try $0.children(type, of: target, limit: Int.max, before: nil)
      }
      found = Dictionary((children ?? []).map { ($0.id, $0) }) { $1 }
    } else {
      found = readSaved { try $0.rows(of: type) } ?? [:]
    }
    for (id, edit) in edits.edits(of: type) { found[id] = edit }
    return found.values.filter { relationship.targets($0).contains(target) }
      .sorted { $0.id < $1.id }
  }

  /// Whether the context has edits that are not saved.
  public var hasChanges: Bool { !edits.isEmpty }

  /// A new id for an object created locally, from the stack's UUID source.
  public func makeID() -> UUID { uuids.next() }

  // MARK: - Editing

  /// Adds `object`; it is saved with the next ``save()``.
  ///
  /// - Throws: ``ContextError/alreadyExists(_:)`` if an object with its id exists, and
  ///   ``ContextError/unknownEntity(_:)`` if the stack does not know its entity.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  public func insert<Object: ModelObject>(_ object: Object) throws(ContextError) {
    guard entities.contains(Object.self) else { throw .unknownEntity(Object.entityName) }
    guard self.object(Object.self, id: object.id) == nil else {
      throw .alreadyExists(object.reference)
    }
    edits.modify(Object.self) { $0.set(object, for: object.id) }
  }

  /// Changes the object of `type` with `id` through `change`, and returns the changed object.
  ///
  /// - Throws: ``ContextError/notFound(_:)`` if there is no such object.
  @discardableResult
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  public func update<Object: ModelObject>(
    _ type: Object.Type, id: UUID, _ change: (inout Object) -> Void
  ) throws(ContextError) -> Object {
    // One visit to the entity's edits for the lookup and the write.
    let changed = edits.modify(type) { slot -> Object? in
      guard var object = slot.edits[id] ?? savedObject(type, id: id) else { return nil }
      change(&object)
      slot.set(object, for: id)
      return object
    }
    guard let changed else { throw .notFound(ObjectReference(Object.entityName, id)) }
    return changed
  }

  /// Deletes the object of `type` with `id` at the next save.
  ///
  /// - Throws: ``ContextError/notFound(_:)`` if there is no such object.
  public func delete<Object: ModelObject>(_ type: Object.Type, id: UUID) throws(ContextError) {
    guard object(type, id: id) != nil else {
      throw .notFound(ObjectReference(Object.entityName, id))
    }
    edits.modify(type) { $0.set(nil, for: id) }
  }

  /// Drops every unsaved edit and any change of `syncMetadata` since the last save, returning
  /// the objects and the metadata to the last saved state.
  ///
  /// The change log keeps what the sync layer recorded since (requests handed out or answered
  /// are still so); the next save writes it.
  public func rollback() {
    edits = PendingEdits()
    remoteEdits = []
    metadata = savedMetadata
  }

  /// Every change of this context: its saves and its merges, from now on; the stream ends once
  /// the context is gone.
  public func changes() -> AsyncStream<ContextChange> { broadcaster.subscribe() }

  // MARK: - Internal access for the other parts of the context

  func setCommitted(_ apply: (inout Tables) -> Void) {
    apply(&committed)
  }

  func modifyLog<Result>(
    touching references: Set<ObjectReference>, changesPlan: Bool = true,
    _ body: (inout LocalChangeLog) -> Result
  ) -> Result {
    if changesPlan { localChangeVersion &+= 1 }
    unsavedLogRecords.formUnion(references)
    return body(&log)
  }

  func modifyLog<Result>(
    touching reference: ObjectReference, changesPlan: Bool = true,
    _ body: (inout LocalChangeLog) -> Result
  ) -> Result {
    if changesPlan { localChangeVersion &+= 1 }
    unsavedLogRecords.insert(reference)
    return body(&log)
  }

  /// A write-ahead mark no record of this context has had.
  func nextWriteAheadMark() -> WriteAheadMark {
    lastWriteAheadSerial += 1
    return WriteAheadMark(serial: lastWriteAheadSerial)
  }

  /// Forgets which records and metadata changed: a save wrote them.
  func markLogSaved() {
    unsavedLogRecords = []
    savedMetadata = metadata
  }

  /// The sync layer's metadata, such as the last notification applied; saved with the context.
  ///
  /// Changed in place: removing one id from a set of it copies nothing.
  package var syncMetadata: SyncMetadata {
    get { metadata }
    _modify { yield &metadata }
    set { metadata = newValue }
  }
}

/// How a context reads the saved objects of a paged entity from the store.
enum StoreReads {
  /// Through the coordinator, which takes its lock for the read.
  case throughCoordinator
  /// Through the view a save in progress was given: the coordinator's lock is held already.
  case duringSave(SavedView)
}
