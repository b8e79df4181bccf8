import Foundation

extension ModelContext {
  /// Checks the rules and commits the unsaved edits as one change set, which the other context
  /// then merges.
  ///
  /// Saving with no edits commits nothing and returns an empty change set.
  ///
  /// In the sync context, an object that still points at one the save deletes, and would break
  /// a rule without it, goes too, as `discardLocally(_:id:)` takes along what points at an
  /// object then: the UI may have saved it after the deletion was made (a message written in a
  /// group the sync layer drops, whose save the store refused and kept for this one). The sync
  /// layer's deletions are the backend's word or the app's, and a rule they break only here
  /// would otherwise undo the deletion and leave what the sync layer recorded beside it.
  ///
  /// - Throws: ``SaveError/invalid(_:)`` naming every object and rule broken; the context is
  ///   then rolled back, so nothing is half-applied. ``SaveError/store(_:)`` when the store
  ///   refused the save (a full disk, a database another process holds): the context keeps its
  ///   edits, and the sync context its change log and metadata, so that the next save writes
  ///   them all; ``rollback()`` drops the edits instead.
  @discardableResult
  public func save() throws(SaveError) -> ChangeSet {
    let result = coordinator.save(from: role) { mail, view in
      storeReads = .duringSave(view)
      defer { storeReads = .throughCoordinator }
      for changes in mail { merge(changes) }
      return pendingChangeSet().map { changes in
        role == .sync
          ? StoreCoordinator.PreparedSave(
            changes: changes, before: Tables(),
            records: log.records(for: unsavedLogRecords, entities: entities),
            metadata: metadataChanged ? metadata : nil)
          : StoreCoordinator.PreparedSave(
            changes: changes, before: committed, records: ChangeLogRecords(), metadata: nil)
      }
    }
    switch result {
    case .failure(let error):
      // A store that refused may take the next save: the edits wait for it, beside the change
      // log they go with. Edits that break rules go.
      if case .invalid = error { rollback() }
      throw error
    case .success(let changes):
      if role == .sync { markLogSaved() }
      setCommitted { $0.apply(changes) }
      rollback()
      releasePagedObjects()
      if !changes.isEmpty {
        broadcaster.publish(ContextChange(context: role, kind: .saved, changes: changes))
      }
      return changes
    }
  }

  /// Merges everything the other context saved since the last merge.
  func mergeIncoming() {
    for changes in coordinator.takeInbox(of: role) { merge(changes) }
    releasePagedObjects()
  }

  private func merge(_ changes: ChangeSet) {
    let fromUser = role == .sync && changes.origin == .ui
    let heard = fromUser ? heardValues(touchedBy: changes) : []
    func reconcile<Changes: AnyEntityChanges>(_ entity: Changes) { merge(entity.typed) }
    for entity in changes.entityChanges { reconcile(entity) }
    if fromUser {
      holdPrevious(of: changes)
      let before = committed
      // What this context heard and has not saved yet is what the backend holds: it is the
      // last synchronised value of a first change, not the store's older one.
      var synchronised = Tables()
      func put<Object: ModelObject>(_ object: Object) { synchronised.put(object) }
      for object in heard { put(object) }
      modifyLog(touching: changes.references) { log in
        log.recordSave(changes, committed: before, heard: synchronised)
        log.countEdits(changes, committed: before)
      }
    }
    setCommitted { $0.apply(changes) }
    broadcaster.publish(ContextChange(context: role, kind: .merged, changes: changes))
  }

  /// The objects `changes` updates that this context holds values of, heard from the backend
  /// and not saved yet, as it holds them before the merge.
  private func heardValues(touchedBy changes: ChangeSet) -> [any ModelObject] {
    guard !remoteEdits.isEmpty else { return [] }
    var heard: [any ModelObject] = []
    func collect<Changes: AnyEntityChanges>(_ entity: Changes) {
      typealias Object = Changes.Object
      let pending = edits.edits(of: Object.self)
      for id in entity.typed.updated.keys
      where remoteEdits.contains(ObjectReference(Object.entityName, id)) {
        if case .some(.some(let object)) = pending[id] { heard.append(object) }
      }
    }
    for entity in changes.entityChanges { collect(entity) }
    return heard
  }

  /// Holds each object of a paged entity that `changes` updates or deletes and this context has
  /// not read, as it was before them: what the change log measures a first change against.
  private func holdPrevious(of changes: ChangeSet) {
    func hold<Changes: AnyEntityChanges>(_ entity: Changes) {
      guard Changes.Object.schema.parent != nil else { return }
      let missing = entity.typed.before.filter {
        committed.object(Changes.Object.self, id: $0.key) == nil
      }
      guard !missing.isEmpty else { return }
      setCommitted { $0.put(contentsOf: Array(missing.values)) }
    }
    for entity in changes.entityChanges { hold(entity) }
  }

  /// Reconciles unsaved edits with incoming changes before they are applied to `committed`.
  ///
  /// In the UI context an unsaved edit of the user's stays; in the sync context the user's save
  /// wins over values heard and not saved yet. Either way a set-valued key merges element by
  /// element: only the elements the winning side changed are its own.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  private func merge<Object: ModelObject>(_ changes: EntityChanges<Object>) {
    // Most merges meet no unsaved edit of the entity: nothing to reconcile.
    guard !edits.isEmpty(Object.self) else { return }
    let incomingWins = role == .sync
    let table = committed.rows(of: Object.self)
    edits.modify(Object.self) { slot in
      for id in changes.deleted { slot.forget(id) }
      let incoming = changes.updated.mapValues { ($0.object, $0.keys) }
        .merging(changes.inserted.mapValues { ($0, Set(Object.Key.allCases)) }) { $1 }
      for (id, (object, keys)) in incoming {
        guard case .some(.some(var edit)) = slot.edits[id] else { continue }
        let base = table[id]
        for key in keys {
          let field = Object.field(key)
          if incomingWins {
            // The user's save wins, and a set-valued key only at the elements the user
            // changed: the others keep what this context heard and has not saved yet.
            var taken = object
            if let base { field.mergeEdit(&taken, base, edit) }
            field.copy(&edit, taken)
            continue
          }
          let editedHere = base.map { field.differs(edit, $0) } ?? true
          if !editedHere {
            field.copy(&edit, object)
          } else if let base {
            field.mergeEdit(&edit, base, object)
          }
        }
        slot.set(edit, for: id)
      }
    }
  }

  // MARK: - Collecting the unsaved edits

  private func pendingChangeSet() -> Result<ChangeSet, SaveError> {
    var discarded: Set<ObjectReference> = []
    while true {
      var changes = ChangeSet(origin: role)
      var failures: [ValidationFailure] = []
      func collectOne<Object: ModelObject>(_ type: Object.Type) {
        collect(type, into: &changes, failures: &failures)
      }
      // Only the entities with edits: asking every entity for edits it has none of costs a
      // slot lookup each, at every save.
      for type in edits.editedTypes where entities.contains(type) { collectOne(type) }
      let referrers = referrerFailures(of: changes)
      let failing = Set(referrers.map(\.object))
      // Each round drops objects still here, so the rounds end; one that stayed though it was
      // dropped is reported rather than dropped again.
      if role == .sync, failures.isEmpty, !failing.isEmpty, failing.isDisjoint(with: discarded) {
        discardLocally(failing)
        discarded.formUnion(failing)
        continue
      }
      failures += referrers
      guard failures.isEmpty else {
        return .failure(.invalid(failures.sorted { $0.object < $1.object }))
      }
      return .success(changes)
    }
  }

  /// Drops each of `references` from this context, with what points at it in turn.
  private func discardLocally(_ references: Set<ObjectReference>) {
    func discard<Object: ModelObject>(_ type: Object.Type) {
      for reference in references where reference.entity == Object.entityName {
        discardLocally(type, id: reference.id)
      }
    }
    for type in entities.types { discard(type) }
  }

  // Each entity's edits and table are fetched once, not per object: looking a slot up costs
  // generic metadata and a hash, which per object made saving 10,000 edits 30 % slower.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  private func collect<Object: ModelObject>(
    _ type: Object.Type, into changes: inout ChangeSet, failures: inout [ValidationFailure]
  ) {
    let pending = edits.edits(of: type)
    guard !pending.isEmpty else { return }
    let table = committed.rows(of: type)
    // Only a paged entity's objects may be missing from the other context.
    let keepsBefore = Object.schema.parent != nil
    var collected = EntityChanges<Object>()
    collected.updated.reserveCapacity(pending.count)
    let anyRemote = !remoteEdits.isEmpty
    for (id, edit) in pending {
      let previous = table[id]
      let reference = ObjectReference(Object.entityName, id)
      let isRemote = anyRemote && remoteEdits.contains(reference)
      guard let edit else {
        guard let previous else { continue }
        if !isRemote {
          for rule in previous.deletionViolations(in: self) {
            failures.append(ValidationFailure(object: reference, rule: rule))
          }
        }
        collected.deleted.insert(id)
        if keepsBefore { collected.before[id] = previous }
        continue
      }
      // The rules are for what the user does here: a value the backend holds is taken as it
      // is (a message of spaces), or its news, and those after them, could never be applied.
      if !isRemote {
        for rule in edit.violations(previous: previous, in: self) {
          failures.append(ValidationFailure(object: reference, rule: rule))
        }
      }
      if let previous {
        let keys = edit.changedKeys(comparedTo: previous)
        guard !keys.isEmpty else { continue }
        // Only keys change once an object is saved: a field outside them (a message's time of
        // writing) keeps its first saved value, even in an object the server dropped and brought
        // back with its own, so that every context and the store, which writes whole rows, agree.
        var saved = previous
        for key in keys { Object.field(key).copy(&saved, edit) }
        collected.updated[id] = .init(object: saved, keys: keys)
        if keepsBefore { collected.before[id] = previous }
      } else {
        collected.inserted[id] = edit
      }
    }
    guard !collected.isEmpty else { return }
    changes.modify(type) { $0 = collected }
  }

  /// The rules broken by objects that still refer to an object this save deletes: each such
  /// object is checked again as it would be after the save.
  private func referrerFailures(of changes: ChangeSet) -> [ValidationFailure] {
    var deleted: [EntityName: Set<UUID>] = [:]
    func note<Changes: AnyEntityChanges>(_ entity: Changes) {
      if !entity.typed.deleted.isEmpty {
        deleted[Changes.Object.entityName] = entity.typed.deleted
      }
    }
    for entity in changes.entityChanges { note(entity) }
    guard !deleted.isEmpty else { return [] }
    var failures: [ValidationFailure] = []
    func check<Source: ModelObject>(_ type: Source.Type) {
      for relationship in Source.relationships {
        for target in deleted[relationship.target] ?? [] {
          // Objects edited in this save were checked already, against the state after it.
          for source in objects(type, referringTo: target, via: relationship)
          where edits.edit(type, id: source.id) == nil {
            let previous = savedObject(type, id: source.id)
            for rule in source.violations(previous: previous, in: self) {
              failures.append(ValidationFailure(object: source.reference, rule: rule))
            }
          }
        }
      }
    }
    for type in entities.types { check(type) }
    return failures
  }
}
