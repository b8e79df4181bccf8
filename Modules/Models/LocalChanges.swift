import Foundation

/// The local changes of one entity that have not been synchronised yet: what the sync layer
/// still has to push.
package struct LocalChanges<Object: ModelObject>: Sendable, Equatable {
  /// Objects inserted locally that the backend does not have yet.
  package internal(set) var inserted: Set<UUID> = []
  /// For each object, the keys changed locally since they were last synchronised.
  package internal(set) var updatedKeys: [UUID: Set<Object.Key>] = [:]
  /// Objects deleted locally whose deletion the backend has not heard of yet.
  package internal(set) var deleted: Set<UUID> = []
  /// For each object with changed keys, its value as last synchronised: what the backend has, so a
  /// strategy can tell what was added or removed (participants, say).
  ///
  /// For a deleted object, its last value, so the deletion can name what it deletes.
  package internal(set) var originals: [UUID: Object] = [:]
  /// For each object in ``originals``, the server's version of the latest news that changed its
  /// last synchronised value or told it again, where the news said one; absent where it is not
  /// known (the value was the object here when the user first changed it, or came from a fetch
  /// or a catch-up that no news told since).
  ///
  /// A request sent again by a later life of the app, whose first answer was never heard, is
  /// placed by it: news after the answer's version came after the request.
  package internal(set) var originalVersions: [UUID: Int] = [:]
  /// Changes the backend refused for good, by object: they wait for the app to retry or
  /// discard them, or for the object to change again.
  package internal(set) var failures: [UUID: PushFailure] = [:]
  /// For each object, values the backend may hold because requests carrying them may have been
  /// applied though their answers were lost; cleared once an answer settles those keys.
  ///
  /// Beside a deletion, the value of an object whose creation was given up, which the backend
  /// only may hold (``ModelContext/discardInsertion(_:id:backendMayHold:)``), and the deletion's
  /// own write-ahead record once it went, which carries no key and keeps its call.
  package internal(set) var unconfirmed: [UUID: [UnconfirmedValue<Object>]] = [:]
  /// For each object with changed keys, each such key's last synchronised value when the user
  /// last changed it, or as an answer to this device last acknowledged it: what the user's
  /// change is measured against, however news of changes older than it move ``originals``
  /// since (a member the user adds back stays added, though news of her earlier addition and
  /// removal put the last synchronised list where the user's list is for a while).
  ///
  /// A member saved while a call of its key may still apply is measured from what the user saw
  /// before that save instead.
  ///
  /// Only the keys in ``updatedKeys`` hold meaningful values.
  package internal(set) var editBases: [UUID: Object] = [:]
  /// For each object edited here, the serial of the last save that changed each of its keys.
  ///
  /// A request tells from it whether the user edited a key again since it went, even back to
  /// the value it carried. Kept in memory only, as requests in flight are.
  package internal(set) var lastEdits: [UUID: [Object.Key: Int]] = [:]
  /// For each object edited here, the serial of the last save that added or removed each
  /// element of its set-valued keys: a request tells from it which members the user touched
  /// since it went, where the key alone says only that some member changed.
  package internal(set) var lastElementEdits: [UUID: [Object.Key: [SetElement: Int]]] = [:]
  /// The serial of the last save recorded here: a request that keeps it when it goes tells a
  /// key or element saved since by a higher serial in ``lastEdits`` or ``lastElementEdits``.
  package private(set) var editSerial = 0

  /// Creates an empty record.
  package init() {}

  /// Whether nothing is waiting to be pushed.
  package var isEmpty: Bool { inserted.isEmpty && updatedKeys.isEmpty && deleted.isEmpty }

  /// Counts what a UI save changed as one more save.
  ///
  /// Each key the save changed, and each element it added to or removed from a set, takes the
  /// save's serial. `committed` holds the values before the save.
  ///
  /// Only the sync context counts saves: its requests in flight compare against the serials.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  mutating func countEdits(_ changes: EntityChanges<Object>, committed: Tables) {
    guard !changes.updated.isEmpty else { return }
    editSerial += 1
    let table = committed.rows(of: Object.self)
    let setKeys = Object.schema.setKeys
    lastEdits.reserveCapacity(lastEdits.count + changes.updated.count)
    for (id, update) in changes.updated {
      Self.stamp(update.keys, with: editSerial, in: &lastEdits[id])
      guard !setKeys.isEmpty else { continue }
      for key in update.keys {
        guard setKeys.contains(key), let before = table[id] else { continue }
        for element in before.changedElements(at: key, comparedTo: update.object) {
          lastElementEdits[id, default: [:]][key, default: [:]][element] = editSerial
        }
      }
    }
  }

  /// Whether no save after the one numbered `serial` changed `key` of the object `id` or, given
  /// an `element` of a set-valued key, added or removed that element.
  package func isUnsaved(
    _ id: UUID, at key: Object.Key, element: SetElement? = nil, since serial: Int
  ) -> Bool {
    guard let element else { return lastEdits[id]?[key] ?? 0 <= serial }
    return lastElementEdits[id]?[key]?[element] ?? 0 <= serial
  }

  /// Forgets the serials of the object `id`'s saves, once no request of it is out to compare
  /// against them: a later request takes the serial of its time, and only later saves count.
  mutating func forgetEditSerials(of id: UUID) {
    if !lastEdits.isEmpty { lastEdits[id] = nil }
    if !lastElementEdits.isEmpty { lastElementEdits[id] = nil }
  }

  /// Forgets what the object `id`'s changes were measured against (its original and its edit
  /// base), once nothing of it is pending or it starts over.
  mutating func forgetBases(of id: UUID) {
    originals[id] = nil
    originalVersions[id] = nil
    editBases[id] = nil
  }

  /// The local change of `id` the backend refused for good, if any.
  package func failure(of id: UUID) -> PushFailure? { failures[id] }

  /// Whether object `id` has some local change to push: an insert, changed keys or a deletion.
  package func hasChange(of id: UUID) -> Bool {
    inserted.contains(id) || updatedKeys[id] != nil || deleted.contains(id)
  }

  /// Every object with some local change, in no particular order.
  package var objectIDs: Set<UUID> { inserted.union(updatedKeys.keys).union(deleted) }

  /// The keys of `id` changed locally and not yet synchronised; empty if none.
  package func keys(of id: UUID) -> Set<Object.Key> { updatedKeys[id] ?? [] }

  /// What the backend is known to hold for the changed object `id`: its last synchronised value,
  /// or for a new object, what the first creation that may have reached the backend sent.
  ///
  /// A creation the backend applied twice keeps its first version, so the first record counts.
  /// `nil` for an object with no local change (the backend holds it as it is here), and for a new
  /// object no creation has carried yet (the backend cannot have it).
  package func backendValue(of id: UUID) -> Object? {
    originals[id] ?? (inserted.contains(id) ? unconfirmed[id]?.first?.value : nil)
  }

  /// Records what a UI save changed; `committed` holds the values before the save, and
  /// `heard` the values the sync context heard from the backend and had not saved yet: the
  /// originals of objects changed for the first time are these, or else the committed ones.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  mutating func recordSave(
    _ changes: EntityChanges<Object>, committed: Tables, heard: Tables = Tables()
  ) {
    let table = committed.rows(of: Object.self)
    let heardRows = heard.rows(of: Object.self)
    // A save of many objects looks each one up once per record: every lookup hashes the id,
    // and hashing is most of what recording a save costs. An optional or default subscript
    // reads and writes its entry with one lookup.
    originals.reserveCapacity(originals.count + changes.updated.count)
    updatedKeys.reserveCapacity(updatedKeys.count + changes.updated.count)
    editBases.reserveCapacity(editBases.count + changes.updated.count)
    for id in changes.inserted.keys {
      inserted.insert(id)
      deleted.remove(id)
      if !failures.isEmpty { failures[id] = nil }
    }
    for (id, update) in changes.updated {
      let isNew = !inserted.isEmpty && inserted.contains(id)
      let original = Self.fill(&originals[id]) {
        isNew ? nil : heardRows.isEmpty ? table[id] : heardRows[id] ?? table[id]
      }
      Self.add(update.keys, to: &updatedKeys[id])
      if !failures.isEmpty { failures[id] = nil }
      if isNew, let backend = backendValue(of: id) {
        noteEdit(of: id, keys: update.keys, measuredAgainst: backend)
      } else if !unconfirmed.isEmpty {
        noteSave(of: id, keys: update.keys, from: table[id], to: update.object)
      }
      if let original {
        Self.fill(&editBases[id], moving: update.keys, from: original)
        if !unconfirmed.isEmpty, let before = table[id] {
          measureFromBefore(id, keys: update.keys, before: before, after: update.object)
        }
      }
    }
    for id in changes.deleted {
      let wasNew = inserted.remove(id) != nil
      updatedKeys[id] = nil
      editBases[id] = nil
      failures[id] = nil
      // An object whose creation was not acknowledged yet is one the backend only may hold:
      // its deletion keeps it among the unconfirmed values, so that giving up a refusal of the
      // deletion brings it back as new (see `ModelContext.restoreInsertion(_:)`), not as held.
      if wasNew, unconfirmed[id] == nil, let value = table[id] {
        unconfirmed[id] = [UnconfirmedValue(keys: Set(Object.Key.allCases), value: value)]
      } else if !wasNew {
        unconfirmed[id] = nil
      }
      // The deletion keeps the object's last value, synchronised or not, for the request.
      if originals[id] == nil { originals[id] = table[id] }
      deleted.insert(id)
    }
  }
}

extension LocalChanges {
  /// Notes, on each call of `id` written ahead, that the user saved those of `keys` it carried
  /// after it went, and of a set, which elements the save moved from `before` to `after`.
  private mutating func noteSave(
    of id: UUID, keys: Set<Object.Key>, from before: Object?, to after: Object
  ) {
    guard var records = unconfirmed[id],
      records.contains(where: { $0.call != nil && !$0.keys.isDisjoint(with: keys) })
    else { return }
    // The elements the save moved, key by key, worked out once for every record.
    var moved: [Object.Key: [SetElement]] = [:]
    if let before {
      for key in keys.intersection(Object.schema.setKeys) {
        let elements = before.changedElements(at: key, comparedTo: after)
        if !elements.isEmpty { moved[key] = elements }
      }
    }
    for index in records.indices where records[index].call != nil {
      let saved = records[index].keys.intersection(keys)
      records[index].savedSince.formUnion(saved)
      for key in saved {
        guard let elements = moved[key] else { continue }
        records[index].savedElementsSince[key, default: []].formUnion(elements)
      }
    }
    unconfirmed[id] = records
  }

  /// The value in `slot`, which `make` fills first if it is empty.
  private static func fill(_ slot: inout Object?, _ make: () -> Object?) -> Object? {
    if slot == nil { slot = make() }
    return slot
  }

  /// Measures the elements a save moved, of each set-valued key a call of `id` may still be
  /// applying, from what the user saw before the save, not from the last synchronised value.
  ///
  /// Such a save is a change of its own, as a key of one value saved while its call is out is:
  /// it goes after the call's answer, and so after any change another device made meanwhile,
  /// unheard yet. News of the call's own effect, heard before the save, must not make a member
  /// the user takes out again look as if it were never moved.
  private mutating func measureFromBefore(
    _ id: UUID, keys: Set<Object.Key>, before: Object, after: Object
  ) {
    guard var base = editBases[id], let records = unconfirmed[id] else { return }
    for key in keys.intersection(Object.schema.setKeys)
    where records.contains(where: { $0.call != nil && $0.keys.contains(key) }) {
      let moved = Set(before.changedElements(at: key, comparedTo: after))
      guard !moved.isEmpty else { continue }
      base.copyValue(at: key, from: before) { $0.map(moved.contains) ?? false }
    }
    editBases[id] = base
  }

  /// Sets the serial of each of `keys` to `serial`, in the serials of one object's saves.
  private static func stamp(
    _ keys: Set<Object.Key>, with serial: Int, in slot: inout [Object.Key: Int]?
  ) {
    var serials = slot ?? Dictionary(minimumCapacity: keys.count)
    slot = nil
    for key in keys { serials[key] = serial }
    slot = serials
  }

  /// Adds `keys` to a set of keys, or takes them as it if there is none.
  private static func add(_ keys: Set<Object.Key>, to slot: inout Set<Object.Key>?) {
    guard var value = slot else {
      slot = keys
      return
    }
    slot = nil
    value.formUnion(keys)
    slot = value
  }

  /// Sets an edit base to `original`, or moves an existing one's `keys` to its values.
  private static func fill(
    _ base: inout Object?, moving keys: Set<Object.Key>, from original: Object
  ) {
    guard var value = base else {
      base = original
      return
    }
    base = nil
    for key in keys { Object.field(key).copy(&value, original) }
    base = value
  }

  /// Notes, on each version of the new object `id` that a creation sent, that the user changed
  /// `keys` after it went, while the backend was taken to hold `backend`.
  private mutating func noteEdit(
    of id: UUID, keys: Set<Object.Key>, measuredAgainst backend: Object
  ) {
    guard var versions = unconfirmed[id] else { return }
    for index in versions.indices {
      var base = versions[index].editedSince ?? EditBase(keys: [], value: backend)
      base.add(keys, measuredAgainst: backend)
      versions[index].editedSince = base
    }
    unconfirmed[id] = versions
  }
}

extension LocalChanges: EntitySlot {}

/// A value the backend may hold for some keys of an object: a request carried it, and its answer
/// was lost.
package struct UnconfirmedValue<Object: ModelObject>: Sendable, Equatable {
  /// The keys the request carried.
  package internal(set) var keys: Set<Object.Key>
  /// The object as the request sent it, changed since as the server's news said.
  package internal(set) var value: Object
  /// The record's mark when a request wrote it ahead, before it went; `nil` for a value recorded
  /// after its answer was lost.
  package let mark: WriteAheadMark?
  /// For a version of a new object that a creation sent: the user's changes made after it went,
  /// which it does not carry, measured against what the backend was taken to hold when the
  /// user made them; `nil` if the user changed nothing since.
  ///
  /// Once news say which version the backend kept, only that version's later changes are the
  /// user's own beside the backend's (``ModelContext/hearCreation(_:keptVersion:)``).
  package internal(set) var editedSince: EditBase<Object>?
  /// For a write-ahead record of an update or a deletion, the call that went, with its
  /// idempotency key.
  ///
  /// A later life of the app sends this call again, as it went, before any later change of its
  /// keys, so the backend applies it at most once, whatever the user saved since. A deletion's
  /// record carries no key; the call is what it keeps.
  package internal(set) var call: RecordedCall?
  /// For a record with a ``call``, the keys it carried that the user saved after the call went,
  /// so that a later life of the app knows those saves are newer than the call.
  package internal(set) var savedSince: Set<Object.Key>
  /// Of the set-valued keys in ``savedSince``, the elements the user added or removed after the
  /// call went: each element counts as a key of its own, saved again even back to what the
  /// call carried.
  package internal(set) var savedElementsSince: [Object.Key: Set<SetElement>]

  /// Creates an unconfirmed value, with the mark of the write-ahead record it is, if any, the
  /// user's changes made after it went, the call that went, and the keys saved since.
  package init(
    keys: Set<Object.Key>, value: Object, mark: WriteAheadMark? = nil,
    editedSince: EditBase<Object>? = nil, call: RecordedCall? = nil,
    savedSince: Set<Object.Key> = [], savedElementsSince: [Object.Key: Set<SetElement>] = [:]
  ) {
    self.keys = keys
    self.value = value
    self.mark = mark
    self.editedSince = editedSince
    self.call = call
    self.savedSince = savedSince
    self.savedElementsSince = savedElementsSince
  }
}

/// The local changes of every entity, as the sync context records them.
struct LocalChangeLog: Sendable {
  private var entities = EntityMap()

  /// The local changes of `type`.
  subscript<Object: ModelObject>(_ type: Object.Type) -> LocalChanges<Object> {
    entities[LocalChanges<Object>.self]
  }

  /// Changes the local changes of `type` in place.
  mutating func modify<Object: ModelObject, Result>(
    _ type: Object.Type, _ body: (inout LocalChanges<Object>) -> Result
  ) -> Result {
    entities.modify(LocalChanges<Object>.self, body)
  }

  /// Records what a UI save changed, entity by entity; `committed` holds the values before it,
  /// and `heard` what the sync context heard and had not saved yet.
  mutating func recordSave(_ changes: ChangeSet, committed: Tables, heard: Tables = Tables()) {
    func record<Changes: AnyEntityChanges>(_ entity: Changes) {
      modify(Changes.Object.self) {
        $0.recordSave(entity.typed, committed: committed, heard: heard)
      }
    }
    for entity in changes.entityChanges { record(entity) }
  }

  /// Counts what a UI save changed as one more save, for each entity (see
  /// ``LocalChanges/countEdits(_:committed:)``).
  mutating func countEdits(_ changes: ChangeSet, committed: Tables) {
    func count<Changes: AnyEntityChanges>(_ entity: Changes) {
      guard !entity.typed.updated.isEmpty else { return }
      modify(Changes.Object.self) { $0.countEdits(entity.typed, committed: committed) }
    }
    for entity in changes.entityChanges { count(entity) }
  }

  /// An empty log.
  init() {}

  /// The log a store kept as `records`.
  init(records: ChangeLogRecords, entities: EntityRegistry) {
    overlay(records, entities: entities)
  }

  /// Writes `records` over the log, object by object.
  mutating func overlay(_ records: ChangeLogRecords, entities: EntityRegistry) {
    func overlayOne<Object: ModelObject>(_ type: Object.Type) {
      let typed = records[type]
      guard !typed.isEmpty else { return }
      modify(type) { changes in
        for (id, record) in typed { changes.setPendingChange(record, of: id) }
      }
    }
    for type in records.objectTypes where entities.contains(type) { overlayOne(type) }
  }

  /// The largest serial of a write-ahead mark in the log, or 0 when it holds none.
  func largestWriteAheadSerial(entities: EntityRegistry) -> Int {
    var largest = 0
    func scan<Object: ModelObject>(_ type: Object.Type) {
      for values in self[type].unconfirmed.values {
        for value in values { largest = max(largest, value.mark?.serial ?? 0) }
      }
    }
    for type in entities.types { scan(type) }
    return largest
  }

  /// The records of the objects `references` name, as a store keeps them: an empty record for
  /// an object with nothing pending, so the store removes its record.
  func records(for references: Set<ObjectReference>, entities: EntityRegistry)
    -> ChangeLogRecords
  {
    var records = ChangeLogRecords()
    guard !references.isEmpty else { return records }
    let byEntity = Dictionary(grouping: references, by: \.entity)
    func collect<Object: ModelObject>(_ type: Object.Type, _ wanted: [ObjectReference]) {
      let changes = self[type]
      records.modifyRecords(of: type) { changes.addPendingChanges(of: wanted, to: &$0) }
    }
    // Only the entities the references name, each found in the registry once.
    for (entity, wanted) in byEntity {
      guard let type = entities.type(named: entity) else { continue }
      collect(type, wanted)
    }
    return records
  }
}

extension LocalChanges {
  /// Adds to `records` what is pending of each object `wanted` names.
  ///
  /// Specialised for the standard entities: the caller reaches it through a type it opened
  /// from the registry, so without these every dictionary write in it ran generic code.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  func addPendingChanges(
    of wanted: [ObjectReference], to records: inout [UUID: PendingChange<Object>]
  ) {
    records.reserveCapacity(records.count + wanted.count)
    for reference in wanted { records[reference.id] = pendingChange(of: reference.id) }
  }
}
