import Foundation
import Seams

/// The sync context's side: values from the server, and the change log of what is still to push.
extension ModelContext {
  /// Takes the server's values of `object` into this context, except for keys with a local change
  /// that has not been pushed yet; the object is inserted if it is new here, unless it was deleted
  /// here and the deletion has not been pushed yet.
  ///
  /// The rules a save checks are for what the user does here and do not apply to what the
  /// server says (a status the backend moved, a message of spaces it took). Objects of an entity
  /// the stack does not know are ignored, with a warning in the log.
  package func applyRemote<Object: ModelObject>(_ object: Object) {
    guard entities.contains(Object.self) else {
      logger.warning("ignored a server \(Object.entityName): the stack does not know the entity")
      return
    }
    // A deletion not yet pushed wins: the server's copy is older than what the user did.
    guard !log[Object.self].deleted.contains(object.id) else { return }
    remoteEdits.insert(object.reference)
    guard var current = self.object(Object.self, id: object.id) else {
      edits.modify(Object.self) { $0.set(object, for: object.id) }
      hear(object)
      return
    }
    let changes = log[Object.self]
    guard !changes.inserted.contains(object.id) else { return }
    let dirty = changes.keys(of: object.id)
    // With nothing pending, the object here is what the server holds: a request still out
    // (news dropped its change and brought the object back) places it by its version.
    if changes.originals[object.id] == nil, current != object { hear(object) }
    for key in Object.Key.allCases where !dirty.contains(key) {
      Object.field(key).copy(&current, object)
    }
    edits.modify(Object.self) { [current] in $0.set(current, for: object.id) }
    // The keys with no local change are synchronised at the server's value: the object's last
    // synchronised value must say so, or a later change is computed against a stale one.
    updateLastSynchronised(Object.self, id: object.id) { original in
      for key in Object.Key.allCases where !dirty.contains(key) {
        Object.field(key).copy(&original, object)
      }
    }
  }

  /// Records, for a request listening to the object, that the news being applied say the
  /// server holds `object`.
  private func hear<Object: ModelObject>(_ object: Object) {
    guard let news, !serverTrails.isEmpty else { return }
    serverTrails.modify(ServerTrails<Object>.self) {
      $0.hear(object, of: object.id, version: news.version)
    }
  }

  /// Changes the object of `type` with `id` through `change` as the server says, and leaves its
  /// local changes as they are: for news of an object this device created whose creation the
  /// backend has not answered yet, which ``applyRemote(_:)`` leaves alone.
  ///
  /// Like what ``applyRemote(_:)`` takes, the change is not checked against the rules a save
  /// checks for the user's edits (another member may name a group with spaces).
  ///
  /// - Throws: ``ContextError/notFound(_:)`` if there is no such object.
  package func applyRemoteChange<Object: ModelObject>(
    _ type: Object.Type, id: UUID, _ change: (inout Object) -> Void
  ) throws(ContextError) {
    try update(type, id: id, change)
    remoteEdits.insert(ObjectReference(Object.entityName, id))
  }

  /// The object `id` as the server was last known to hold it: its last synchronised value
  /// while a change of it is pending here, else the object as it is here.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func lastSynchronised<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    log[type].originals[id] ?? object(type, id: id)
  }

  /// Applies a change the server made to the last synchronised value of the object `id`, for
  /// keys with a local change not yet pushed: the local values stay as they are, and the next
  /// request is worked out against what the server now holds.
  ///
  /// An object whose insert is not acknowledged yet gets a last synchronised value here: a change
  /// the server made proves that the server has it. It starts from what the creation sent
  /// (``LocalChanges/backendValue(of:)``), not from the local value, which may hold changes the
  /// server has not seen. Each version of the object that a creation may have left on the
  /// backend (``LocalChanges/unconfirmed``) changes the same way, since which one the backend
  /// kept is not known until the creation is answered.
  package func updateLastSynchronised<Object: ModelObject>(
    _ type: Object.Type, id: UUID, _ change: (inout Object) -> Void
  ) {
    let changes = log[type]
    let isInserted = changes.inserted.contains(id)
    guard let before = changes.backendValue(of: id) ?? (isInserted ? object(type, id: id) : nil)
    else { return }
    var original = before
    change(&original)
    let versions = isInserted ? changes.unconfirmed[id] ?? [] : []
    let changedVersions = versions.map { version in
      var changed = version
      change(&changed.value)
      return changed
    }
    let serverChanged = original != before
    // News that leave the value as it was (a fetch read it first) still say its version.
    let newsVersion = news?.version
    let versionMoved =
      newsVersion != nil && newsVersion != changes.originalVersions[id]
      && changes.originals[id] != nil
    guard serverChanged || changedVersions != versions || versionMoved else { return }
    if serverChanged { hear(original) }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { [original] changes in
        if serverChanged || versionMoved {
          changes.originals[id] = original
          changes.originalVersions[id] = newsVersion
        }
        if !changedVersions.isEmpty { changes.unconfirmed[id] = changedVersions }
      }
    }
  }

  /// Applies a change the server made, which the object here took as well, to what the user's
  /// pending change of the object `id` is measured from: its edit base
  /// (``LocalChanges/editBases``) and the values a request of it may leave on the backend
  /// (``LocalChanges/unconfirmed``).
  ///
  /// The change did not come from the user, so it must not read as one later: a member another
  /// member added and then removed, while the user's own member change was out, would otherwise
  /// look added here by the user, and be added again. A value that records a call keeps what
  /// the call sent: the next app sends that call again as it went, and settles it by that value.
  /// Those who read it count only the members the call named.
  package func updateChangeBases<Object: ModelObject>(
    _ type: Object.Type, id: UUID, _ change: (inout Object) -> Void
  ) {
    let changes = log[type]
    let base = changes.editBases[id].map { base in
      var changed = base
      change(&changed)
      return changed
    }
    let values = (changes.unconfirmed[id] ?? []).map { entry in
      guard entry.call == nil else { return entry }
      var changed = entry
      change(&changed.value)
      return changed
    }
    guard base != changes.editBases[id] || values != changes.unconfirmed[id] ?? [] else { return }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { [base] changes in
        if let base { changes.editBases[id] = base }
        if !values.isEmpty { changes.unconfirmed[id] = values }
      }
    }
  }

  /// Records that the backend made the object this device created, whose creation is not
  /// answered yet, as `object`: its last synchronised value, and every version a creation may
  /// have left, become `object`.
  ///
  /// The version the backend kept is the first that `isKept` accepts (a backend that got two
  /// creations keeps the first): changes the user made before it went are in it, and news of
  /// later changes by others apply over them; only changes made after it went stay the user's
  /// own beside those news (``UnconfirmedValue/editedSince``). If no version is accepted, the
  /// user's changes after each one stay theirs.
  package func hearCreation<Object: ModelObject>(
    _ object: Object, keptVersion isKept: (Object) -> Bool
  ) {
    let versions = log[Object.self].unconfirmed[object.id] ?? []
    let kept = versions.first { isKept($0.value) }
    updateLastSynchronised(Object.self, id: object.id) { $0 = object }
    guard let kept, versions.contains(where: { $0.editedSince != kept.editedSince }) else {
      return
    }
    modifyLog(touching: object.reference) { log in
      log.modify(Object.self) { changes in
        for index in changes.unconfirmed[object.id]?.indices ?? 0..<0 {
          changes.unconfirmed[object.id]?[index].editedSince = kept.editedSince
        }
      }
    }
  }

  /// Starts keeping, in order, each last synchronised value the server is heard to hold for
  /// the object `id`; returns the mark to read them from.
  ///
  /// A request in flight listens so that its answer can tell whether the server changed the
  /// keys it carries meanwhile, even where the server ended where it began (a member added and
  /// removed again). Every mark must be ended, with ``endServerTrail(of:id:from:)`` or
  /// ``stopServerTrail(of:id:from:)``; the values are kept in memory only, for as long as some
  /// mark is open.
  package func startServerTrail<Object: ModelObject>(of type: Object.Type, id: UUID)
    -> ServerTrailMark
  {
    serverTrails.modify(ServerTrails<Object>.self) { $0.start(id) }
  }

  /// The values the server was heard to hold for the object `id` since `mark`, oldest first,
  /// each with the version of the news that told it; the mark stays open.
  package func serverTrail<Object: ModelObject>(
    of type: Object.Type, id: UUID, from mark: ServerTrailMark
  ) -> [HeardValue<Object>] {
    serverTrails.slot(ServerTrails<Object>.self)?.heard(id, from: mark) ?? []
  }

  /// The values the server was heard to hold for the object `id` since `mark`, oldest first
  /// (the last is the object's last synchronised value); ends that mark.
  package func endServerTrail<Object: ModelObject>(
    of type: Object.Type, id: UUID, from mark: ServerTrailMark
  ) -> [Object] {
    let heard = serverTrail(of: type, id: id, from: mark)
    return stopServerTrail(of: type, id: id, from: mark) ? heard.map(\.value) : []
  }

  /// Ends `mark` without reading what was heard; returns whether it was open.
  @discardableResult
  package func stopServerTrail<Object: ModelObject>(
    of type: Object.Type, id: UUID, from mark: ServerTrailMark
  ) -> Bool {
    let (wasOpen, nobodyListens) = serverTrails.modify(ServerTrails<Object>.self) {
      ($0.end(id, from: mark), $0.isEmpty)
    }
    // An empty map keeps `updateLastSynchronised` from looking for listeners at all.
    if nobodyListens { serverTrails.remove(ServerTrails<Object>.self) }
    return wasOpen
  }

  /// Deletes the object the server deleted, whatever its local changes.
  package func applyRemoteDeletion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard object(type, id: id) != nil else { return }
    remoteEdits.insert(ObjectReference(Object.entityName, id))
    edits.modify(type) { $0.set(nil, for: id) }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { changes in
        changes.inserted.remove(id)
        changes.updatedKeys[id] = nil
        changes.deleted.remove(id)
        changes.forgetBases(of: id)
        changes.failures[id] = nil
        changes.unconfirmed[id] = nil
      }
    }
  }

  /// Drops the object `id` from this context without telling the backend: the server deleted it, or
  /// a change the backend refused is given up.
  ///
  /// Objects that refer to it through a relationship go too, so the save that follows breaks no
  /// rule.
  package func discardLocally<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    applyRemoteDeletion(type, id: id)
    func discardReferrers<Source: ModelObject>(_ source: Source.Type) {
      for relationship in Source.relationships where relationship.target == Object.entityName {
        for referrer in objects(source, referringTo: id, via: relationship) {
          discardLocally(source, id: referrer.id)
        }
      }
    }
    for source in entities.types { discardReferrers(source) }
  }

  /// Drops the new object `id` from this context, with what refers to it, and records its
  /// deletion to push, because a creation whose answer was lost may have made it on the backend
  /// as `backendMayHold`.
  ///
  /// An app that gives up creating an object the backend may hold anyway asks the backend to
  /// delete it (for a group, to leave it), so that it does not live on there unseen; the strategy
  /// settles a deletion of what the backend does not hold. The deletion keeps `backendMayHold`
  /// among ``LocalChanges/unconfirmed`` too, which marks it as one of an object the backend only
  /// may hold (see ``restoreInsertion(_:)``).
  package func discardInsertion<Object: ModelObject>(
    _ type: Object.Type, id: UUID, backendMayHold: Object
  ) {
    discardLocally(type, id: id)
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { changes in
        changes.deleted.insert(id)
        changes.originals[id] = backendMayHold
        changes.originalVersions[id] = nil
        changes.unconfirmed[id] = [
          UnconfirmedValue(keys: Set(Object.Key.allCases), value: backendMayHold)
        ]
      }
    }
  }

  /// Brings back `object`, whose creation was given up (``discardInsertion(_:id:backendMayHold:)``),
  /// as a new object whose creation goes again: the backend only may hold it, and a creation
  /// with the object's own id is answered with the object if it does.
  package func restoreInsertion<Object: ModelObject>(_ object: Object) {
    if log[Object.self].deleted.contains(object.id) {
      endedDeletionCounts[object.reference, default: 0] += 1
    }
    modifyLog(touching: object.reference) { log in
      log.modify(Object.self) { changes in
        changes.deleted.remove(object.id)
        changes.forgetBases(of: object.id)
        changes.failures[object.id] = nil
        changes.inserted.insert(object.id)
      }
    }
    remoteEdits.insert(object.reference)
    edits.modify(Object.self) { $0.set(object, for: object.id) }
  }

  /// Records that the backend refused the local change of `id` for good; it is not sent again
  /// until ``clearPushFailure(_:id:)``, or until the UI changes the object again.
  package func markPushFailed<Object: ModelObject>(
    _ type: Object.Type, id: UUID, _ failure: PushFailure
  ) {
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { $0.failures[id] = failure }
    }
  }

  /// Forgets the refusal of the local change of `id`, so it is sent again.
  package func clearPushFailure<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard log[type].failures[id] != nil else { return }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { _ = $0.failures.removeValue(forKey: id) }
    }
  }

  /// The local changes of `type` that are not synchronised yet.
  ///
  /// The sync context records them from every UI save and keeps them across saves until they are
  /// cleared; in the UI context they are always empty. Reading it costs as much as the number of
  /// changed objects, not the number of objects.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func localChanges<Object: ModelObject>(of type: Object.Type) -> LocalChanges<Object> {
    log[type]
  }

  /// Marks `keys` of the object `id` as synchronised.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func clearLocalChanges<Object: ModelObject>(
    _ type: Object.Type, id: UUID, keys: Set<Object.Key>
  ) {
    guard let dirty = log[type].updatedKeys[id], !dirty.isDisjoint(with: keys) else { return }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { changes in
        guard var remaining = changes.updatedKeys[id] else { return }
        remaining.subtract(keys)
        changes.updatedKeys[id] = remaining.isEmpty ? nil : remaining
        if remaining.isEmpty {
          changes.forgetBases(of: id)
          if !changes.inserted.contains(id) {
            changes.failures[id] = nil
            changes.unconfirmed[id] = nil
          }
        }
      }
    }
  }

  /// Records that the backend now holds `object`'s values for `keys` (they were pushed), so the
  /// synchronised value of those keys is theirs, whether or not they changed again since; values
  /// left unconfirmed by lost answers for those keys are settled too.
  ///
  /// What the user changed is measured from what the backend acknowledged, except for what
  /// they saved after the request went (saves with a serial above `savedUpTo`, key by key and
  /// member by member, and what `savedAlso` says was saved since): that save is a change of its
  /// own, still measured from what the user saw when making it, so it stays pending even where
  /// it set the value the request carried.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func recordSynchronised<Object: ModelObject>(
    _ object: Object, keys: Set<Object.Key>, savedUpTo: Int = .max,
    savedAlso: (Object.Key, SetElement?) -> Bool = { _, _ in false }
  ) {
    let changes = log[Object.self]
    guard changes.updatedKeys[object.id] != nil || changes.unconfirmed[object.id] != nil else {
      return
    }
    modifyLog(touching: object.reference) { log in
      log.modify(Object.self) { changes in
        if changes.updatedKeys[object.id] != nil {
          var original = changes.originals[object.id] ?? object
          for key in keys { Object.field(key).copy(&original, object) }
          changes.originals[object.id] = original
          if var base = changes.editBases[object.id] {
            for key in keys {
              base.copyValue(at: key, from: object) { element in
                !savedAlso(key, element)
                  && changes.isUnsaved(object.id, at: key, element: element, since: savedUpTo)
              }
            }
            changes.editBases[object.id] = base
          }
        }
        let open = (changes.unconfirmed[object.id] ?? []).compactMap { entry in
          var left = entry
          left.keys.subtract(keys)
          return left.keys.isEmpty ? nil : left
        }
        changes.unconfirmed[object.id] = open.isEmpty ? nil : open
      }
    }
  }

  /// Records that the backend may hold `object`'s values for `keys`.
  ///
  /// A request carried them and its answer was lost, or a request left one of several values
  /// behind. Strategies whose requests are changes relative to the backend's value (added and
  /// removed members) take these into account.
  package func recordUnconfirmed<Object: ModelObject>(_ object: Object, keys: Set<Object.Key>) {
    appendUnconfirmed(UnconfirmedValue(keys: keys, value: object), changesPlan: true)
  }

  /// Records, before a request goes out, that the backend may hold `object`'s values for `keys`
  /// from now on, so that an app that dies before the answer still accounts for them.
  ///
  /// It is a write-ahead record: save the context before sending. It does not change which
  /// changes are ready, so ``localChangeVersion`` stays as it is. An answer settles it
  /// (``recordSynchronised(_:keys:)``); an answer that proves the request was not applied
  /// withdraws it by the mark returned here (``withdrawInFlight(_:id:mark:)``). The record
  /// keeps the request's `call`, if it has one, for a later life of the app to send again as
  /// it went.
  @discardableResult
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func recordInFlight<Object: ModelObject>(
    _ object: Object, keys: Set<Object.Key>, call: RecordedCall? = nil
  ) -> WriteAheadMark {
    let mark = nextWriteAheadMark()
    appendUnconfirmed(
      UnconfirmedValue(keys: keys, value: object, mark: mark, call: call),
      changesPlan: false)
    return mark
  }

  private func appendUnconfirmed<Object: ModelObject>(
    _ entry: UnconfirmedValue<Object>, changesPlan: Bool
  ) {
    modifyLog(touching: entry.value.reference, changesPlan: changesPlan) { log in
      log.modify(Object.self) { changes in
        changes.unconfirmed[entry.value.id, default: []].append(entry)
      }
    }
  }

  /// Removes the write-ahead record `mark` of the object `id`: the request that wrote it surely
  /// did not reach the backend.
  ///
  /// The record is found by its mark, so news that changed its values since still find it; a
  /// record already settled by another answer is gone, and then nothing changes.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func withdrawInFlight<Object: ModelObject>(
    _ type: Object.Type, id: UUID, mark: WriteAheadMark
  ) {
    guard let index = log[type].unconfirmed[id]?.firstIndex(where: { $0.mark == mark }) else {
      return
    }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { changes in
        changes.unconfirmed[id]?.remove(at: index)
        if changes.unconfirmed[id]?.isEmpty == true { changes.unconfirmed[id] = nil }
      }
    }
  }

  /// Forgets the serials of the object `id`'s saves, once no request of it is out.
  ///
  /// They are kept in memory only, so no record changes.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  package func forgetEditSerials<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    // In place: reading the entity's changes to look first would copy them.
    modifyLog(touching: [], changesPlan: false) { log in
      log.modify(type) { $0.forgetEditSerials(of: id) }
    }
  }

  /// Takes the call that went under `idempotencyKey` off the write-ahead records of `id`.
  ///
  /// An attempt of it was answered, so no later life sends it again. The values stay what the
  /// backend may hold until an answer settles their keys; a record of no key (a deletion's),
  /// which kept only the call, goes.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func endCall<Object: ModelObject>(
    _ type: Object.Type, id: UUID, idempotencyKey: String
  ) {
    guard
      log[type].unconfirmed[id]?.contains(where: { $0.call?.idempotencyKey == idempotencyKey })
        == true
    else { return }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { changes in
        let kept = (changes.unconfirmed[id] ?? []).compactMap { record in
          guard record.call?.idempotencyKey == idempotencyKey else { return record }
          var record = record
          record.call = nil
          return record.keys.isEmpty ? nil : record
        }
        changes.unconfirmed[id] = kept.isEmpty ? nil : kept
      }
    }
  }

  /// Marks the insertion of the object `id` as synchronised: the backend has it now.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func clearLocalInsertion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard log[type].inserted.contains(id) else { return }
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { _ = $0.inserted.remove(id) }
    }
  }

  /// How many times a pending deletion of `reference` has left this context's change log
  /// (acknowledged, settled by the server's news, or undone) since the context was made.
  ///
  /// A request carrying a deletion notes it when it goes: if it changed by the time the answer
  /// comes, a deletion pending then was made later (news settled the first while the request
  /// was out, and the user deleted the object again), and that answer does not settle it.
  package func endedDeletions(of reference: ObjectReference) -> Int {
    endedDeletionCounts[reference] ?? 0
  }

  /// Marks the deletion of the object `id` as synchronised: the backend deleted it too, and
  /// holds none of the values it may have held.
  @_specialize(exported:true,where Object == User)
  @_specialize(exported:true,where Object == Message)
  @_specialize(exported:true,where Object == Conversation)
  @_specialize(exported:true,where Object == Connection)
  package func clearLocalDeletion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard log[type].deleted.contains(id) else { return }
    endedDeletionCounts[ObjectReference(Object.entityName, id), default: 0] += 1
    modifyLog(touching: ObjectReference(Object.entityName, id)) { log in
      log.modify(type) { changes in
        changes.deleted.remove(id)
        changes.forgetBases(of: id)
        changes.failures[id] = nil
        changes.unconfirmed[id] = nil
      }
    }
  }
}
