import CourierAPI
import Foundation
import Models
import ParsingCore
import Transport

extension EntityTrack {
  /// Applies how the request `token` ended: the keys it carried are settled only if they still
  /// hold what it sent; any other key of the object keeps its own state.
  ///
  /// The specialisations sit on this call alone, which holds no value of a generic type: the
  /// generic body looks up the metadata of its locals as it starts, before it could hand over
  /// to a specialised copy.
  @_specialize(where Strategy == SelfUserStrategy)
  @_specialize(where Strategy == ConnectionStrategy)
  @_specialize(where Strategy == ConversationStrategy)
  @_specialize(where Strategy == MessageStrategy)
  func complete(_ token: RequestToken, _ outcome: UpstreamOutcome, in context: ModelContext)
    -> UpstreamCompletion
  {
    applyOutcome(token, outcome, in: context)
  }

  private func applyOutcome(
    _ token: RequestToken, _ outcome: UpstreamOutcome, in context: ModelContext
  )
    -> UpstreamCompletion
  {
    guard let flight = flights.removeValue(forKey: token) else { return .unknownToken(token) }
    // What the server was heard to hold for the object while the request was out.
    let versionedHeard =
      flight.trail.map { context.serverTrail(of: Object.self, id: flight.id, from: $0) } ?? []
    let outcome = placeable(outcome, of: flight, heard: versionedHeard)
    defer { forgetEditSerialsIfIdle(flight.id, in: context) }
    release(token, of: flight)
    noteKey(of: flight, outcome)
    // An answer ends the call: no later life sends it again.
    if flight.kind != .insert, outcome.isFinal {
      context.endCall(Object.self, id: flight.id, idempotencyKey: flight.idempotencyKey)
    }
    // An update whose answer was lost goes again as it went; it keeps hearing news meanwhile.
    // So does one sent again after that, even if this attempt surely did not reach the backend.
    if case .temporary(let failure) = outcome,
      failure.mayHaveBeenApplied || flight.mayBeAppliedAlready, flight.kind == .update,
      flight.trail != nil, !isDroppedByNews(flight.id, in: context)
    {
      var attempts = lostAttempts[flight.id] ?? []
      if let index = attempts.firstIndex(where: { $0.endpoint == flight.endpoint }) {
        let older = attempts.remove(at: index)
        if let trail = older.trail, trail != flight.trail {
          context.stopServerTrail(of: Object.self, id: flight.id, from: trail)
        }
      }
      attempts.append(flight)
      lostAttempts[flight.id] = attempts
      recordPossiblyApplied(flight, in: context)
      return .retrying(reference(flight.id), retryIn: .zero, failure)
    }
    if let trail = flight.trail {
      context.stopServerTrail(of: Object.self, id: flight.id, from: trail)
    }
    let reference = reference(flight.id)
    let order = serverOrder(of: flight, heard: versionedHeard, outcome: outcome)
    let answered: ServerVersion? =
      if case .success(_, let version) = outcome { version } else { nil }
    let sent = SentChange(
      kind: flight.kind, id: flight.id, keys: flight.keys, sent: flight.sent,
      lastKnown: order?.before ?? flight.lastKnown, endpoint: flight.endpoint,
      heard: order?.after ?? versionedHeard.map(\.value), unconfirmed: flight.unconfirmed,
      version: answered)
    // News dropped the object here while the request was out (another member removed the self
    // user from its group): an answer settles the request and leaves nothing behind, neither
    // the object nor values the backend may hold; a temporary failure still backs the object
    // off (it may come back), and a refusal is superseded, below, and says so. If the news
    // brought a new object back too (the member added the self user back), they were worked
    // out after the backend made it, so they are newer than the creation's answer, which
    // leaves the object as they left it.
    if isDroppedByNews(flight.id, in: context) || isBroughtBackByNews(flight, in: context) {
      switch outcome {
      case .success:
        withdraw(flight, in: context)
        return .settled(reference)
      case .temporary(let failure):
        withdraw(flight, in: context)
        return .retrying(reference, retryIn: .zero, failure)
      case .permanent:
        break
      }
    }
    switch outcome {
    case .success(let response, _):
      // The answer replaces what the request wrote ahead; the strategy sees only what other
      // requests left uncertain.
      withdraw(flight, in: context)
      let news = serverNews(during: flight, from: sent.lastKnown, heard: sent.heard, in: context)
      var acknowledgement =
        strategy.acknowledgement(of: sent, response: response, in: context)
        ?? flight.asSent
      var overtaken: Set<Object.Key> = []
      // The server applied the news after this request: their values stand.
      if flight.kind == .update, let news, let held = acknowledgement?.value,
        let sentValue = flight.sent
      {
        overtaken = news.keys
        acknowledgement?.value = news.overtaking(held, sent: sentValue)
      }
      // The backend made the object as the answer says, then changed it as the news say: a key
      // the news moved holds the news' value now, which the object here may differ from.
      if flight.kind == .insert, let news, let held = acknowledgement {
        let versions = context.localChanges(of: Object.self).unconfirmed[flight.id] ?? []
        var changed = news.acknowledgementOfInsert(
          held: held.value, versions: versions.map(\.value))
        changed.alsoPossible += held.alsoPossible
        acknowledgement = changed
      }
      if flight.kind == .delete, isOlder(answered, thanNewsOf: flight.id, in: context),
        context.endedDeletions(of: reference) == flight.endedDeletions
      {
        // The server applied the deletion before the news last heard of the object (another
        // member added the self user back to a group they left): the news stand.
        revert(.delete, flight.id, keys: [], in: context)
      } else {
        settle(flight, holding: acknowledgement, in: context)
      }
      if !overtaken.isEmpty { yield(overtaken, of: flight, in: context) }
      strategy.didSucceed(sent, response: response, in: context)
      if flight.kind == .insert, let news { adopt(news, after: flight, in: context) }
      return .settled(reference)
    case .temporary(let failure):
      // An update's values were recorded as possibly applied before it went; they stay so
      // unless the request surely never reached the backend. An insert's are recorded now.
      if failure.mayHaveBeenApplied {
        recordPossiblyApplied(flight, in: context)
      } else {
        withdraw(flight, in: context)
      }
      return .retrying(reference, retryIn: .zero, failure)
    case .permanent(let failure):
      if let since = supersession(of: flight, in: context) {
        withdraw(flight, in: context)
        if flight.kind == .delete { settleLocally(.delete, flight.id, keys: [], in: context) }
        return .reverted(reference, reason: "\(failure), and \(since)")
      }
      let decision = strategy.didFailPermanently(sent, failure: failure, in: context)
      if decision != .alreadyApplied { withdraw(flight, in: context) }
      switch decision {
      case .markFailed(let reason):
        let record = PushFailure(
          reason: reason, status: failure.status, label: failure.label?.rawValue)
        context.markPushFailed(Object.self, id: flight.id, record)
        return .failed(reference, record)
      case .revert(let reason):
        revert(flight.kind, flight.id, keys: stillAsSent(flight, in: context), in: context)
        return .reverted(reference, reason: reason)
      case .alreadyApplied:
        settle(flight, holding: flight.asSent, in: context)
        return .settled(reference)
      }
    }
  }

  /// Whether object `id` is gone here with nothing of it left to push: dropped by news, not
  /// deleted by the user (whose deletion would still be pending).
  private func isDroppedByNews(_ id: UUID, in context: ModelContext) -> Bool {
    context.object(Object.self, id: id) == nil
      && !context.localChanges(of: Object.self).hasChange(of: id)
  }

  /// Whether an answer at `version` is older than the news that last told what the server holds
  /// for the object `id`.
  private func isOlder(_ version: ServerVersion?, thanNewsOf id: UUID, in context: ModelContext)
    -> Bool
  {
    guard let answered = version?.rawValue,
      let heard = context.localChanges(of: Object.self).originalVersions[id]
    else { return false }
    return heard > answered
  }

  /// Whether `flight` created an object that news dropped here and then brought back as the
  /// backend holds it: it is here, no longer as this device's new object, and not deleted.
  private func isBroughtBackByNews(_ flight: Flight, in context: ModelContext) -> Bool {
    guard flight.kind == .insert, context.object(Object.self, id: flight.id) != nil else {
      return false
    }
    let changes = context.localChanges(of: Object.self)
    return !changes.inserted.contains(flight.id) && !changes.deleted.contains(flight.id)
  }

  /// What the server was heard to hold for `flight`'s keys while it was in flight (for an
  /// update, after it applied the request), where
  /// notifications pulled before the answer came changed them: from what it held when the
  /// request went (for an insert, from what it created), or along the way (`heard`, oldest
  /// first), even if they changed back.
  ///
  /// Where an earlier answer left the backend's value of a key uncertain (a value recorded as
  /// possible, `LocalChanges.unconfirmed`), the backend may have held that value when the
  /// request went: news that differ from it moved the key too, even where they end as `before`
  /// stood; were they read as no change, the answer would settle the key on a value the backend
  /// no longer held.
  ///
  /// Only keys the strategy pushes count; an answer that carried none of them (a message) costs
  /// no lookup.
  private func serverNews(
    during flight: Flight, from lastKnown: Object?, heard: [Object], in context: ModelContext
  ) -> ServerNews<Object>? {
    let ordered = flight.kind == .update
    let pushed = flight.keys.intersection(pushableKeys)
    guard !pushed.isEmpty, let before = lastKnown ?? flight.sent else { return nil }
    let changes = context.localChanges(of: Object.self)
    guard let now = changes.originals[flight.id] else { return nil }
    let path: [Object]
    if ordered, !heard.isEmpty, let sent = flight.sent {
      // With the order known, the server held what the request sent once it applied it, and
      // `heard` came after: news that set a key back to its earlier value (a contact asking
      // again) moved it too.
      var applied = before
      for key in pushed { applied.copyValue(at: key, from: sent) }
      path = [applied] + heard
    } else {
      path = [before] + heard + [now]
    }
    // Keys whose value the backend may have held besides `before`, which the first news differ
    // from; none for an update, whose order the server's versions say, and whose `lastKnown`
    // is what the backend held.
    let movedFromPossible: Set<Object.Key> =
      ordered
      ? []
      : heard.first.map { first in
        Set(
          (changes.unconfirmed[flight.id] ?? []).flatMap { possible in
            possible.keys.filter { !possible.value.hasSameValue(at: $0, as: first) }
          })
      } ?? []
    let moved = pushed.filter { key in
      movedFromPossible.contains(key)
        || zip(path, path.dropFirst()).contains { !$0.hasSameValue(at: key, as: $1) }
    }
    return moved.isEmpty ? nil : ServerNews(value: now, keys: moved)
  }

  /// Where the server's versions place an update's answer among the news heard while it was out:
  /// the value the server held once it applied the request as far as the news told (`before`),
  /// and the values it was heard to hold after, in the order of their versions (`after`).
  ///
  /// `nil` for an insert or a deletion, and for a request that failed. An answer without a
  /// version heard nothing it would have to be placed among (``placeable(_:of:heard:)``).
  private func serverOrder(
    of flight: Flight, heard: [HeardValue<Object>], outcome: UpstreamOutcome
  ) -> (before: Object?, after: [Object])? {
    guard flight.kind == .update, case .success(_, let version) = outcome else { return nil }
    let answered = version?.rawValue ?? .max
    var heard = heard
    var start = flight.lastKnown
    // Sent again after a restart: what the earlier life heard last, after the request was
    // applied, came after it, and the request left the keys as it sent them.
    if let heardBefore = flight.earlierLifeVersion, heardBefore > answered,
      let lastKnown = flight.lastKnown
    {
      heard.insert(HeardValue(value: lastKnown, version: heardBefore), at: 0)
      start = flight.sent ?? lastKnown
    }
    // The server's order is the order of its versions, not the order the values were heard
    // in: a read answered late can tell a newer value before the news of an older change.
    let ordered = heard.enumerated().sorted {
      ($0.element.version ?? 0, $0.offset) < ($1.element.version ?? 0, $1.offset)
    }.map(\.element)
    let earlier = ordered.prefix { ($0.version ?? 0) <= answered }
    return (earlier.last?.value ?? start, ordered.dropFirst(earlier.count).map(\.value))
  }

  /// `outcome`, or, for an update's answer that its version cannot place among the news heard
  /// while it was out (it has none, or some news came without one), a lost answer: the request
  /// goes again under its key, and the server repeats its first answer with its version.
  ///
  /// Without the order, either change may have come last, and no rule could tell which to keep.
  private func placeable(
    _ outcome: UpstreamOutcome, of flight: Flight, heard: [HeardValue<Object>]
  ) -> UpstreamOutcome {
    guard flight.kind == .update, case .success(_, let version) = outcome, flight.trail != nil
    else { return outcome }
    let isPlaced =
      version != nil
      ? heard.allSatisfy { $0.version != nil }
      : heard.isEmpty && flight.earlierLifeVersion == nil
    guard !isPlaced else { return outcome }
    return .temporary(
      BackendFailure(
        responseClass: .temporary, unreadableBody: .missingVersion(flight.endpoint.route)))
  }

  /// Gives the server's values to the keys whose news it applied after `flight`.
  ///
  /// Where the object here still holds what the request carried and the user has not saved the
  /// key again since it went, the user's change lost to a later one, so it is neither kept here
  /// nor sent again. A key the user saved since, even back to the value sent, stays pending;
  /// that edit is newer than both. Of a set, each element counts on its own: an element the
  /// request added or removed, still so here and not touched by a save since, takes the
  /// server's value, whatever else of the set the user changed (a member the request added and
  /// another member removed later goes; one the user added since stays). So does a key the
  /// request carried only part of: a removal that went before an addition of the same save
  /// yields its members, and the addition still goes. Of a call an earlier life of the app
  /// sent, the keys its record says the user saved since count as saved (of a set, the members
  /// the user's change moves that the call does not name), and every save of this life does.
  /// A member call changes the members it names, even where what was known when it went (again,
  /// after a lost answer) already held them.
  private func yield(_ keys: Set<Object.Key>, of flight: Flight, in context: ModelContext) {
    let changes = context.localChanges(of: Object.self)
    let notSaved = keys.filter {
      !flight.isSavedSince($0, in: changes)
    }
    let partial = keys.filter { key in
      guard let local = flight.local, let sent = flight.sent else { return false }
      return !local.hasSameValue(at: key, as: sent)
    }
    let unchanged = stillAsSent(flight, in: context).intersection(notSaved).subtracting(partial)
    guard var current = context.object(Object.self, id: flight.id),
      let held = changes.originals[flight.id]
    else { return }
    let moved = keys.subtracting(unchanged)
    if !moved.isEmpty, var before = flight.lastKnown, let after = flight.sent {
      // The members a member call names are the ones it changes, even where what was known
      // when it went already held them (it went again after its answer was lost).
      let named = flight.endpoint.namedElements
      for key in moved {
        before.copyValue(at: key, from: held) { $0.map(named.contains) ?? false }
      }
      var merged = current
      for key in moved {
        merged.yieldChange(at: key, from: before, to: after, incoming: held) { element in
          !flight.isSavedSince(key, element: element, in: changes)
        }
      }
      if merged != current {
        _ = try? context.update(Object.self, id: flight.id) { $0 = merged }
        current = merged
      }
    }
    guard !unchanged.isEmpty else { return }
    for key in unchanged { current.copyValue(at: key, from: held) }
    context.clearLocalChanges(Object.self, id: flight.id, keys: unchanged)
    context.applyRemote(current)
  }

  /// Takes what the server was heard to hold for an acknowledged insert's keys, except where the
  /// object changed here since (those changes are still to be sent).
  ///
  /// Only a server that has the object can report a change of it, so the change came after the
  /// insert; any later one is still to come through the notifications.
  private func adopt(_ news: ServerNews<Object>, after flight: Flight, in context: ModelContext) {
    guard var current = context.object(Object.self, id: flight.id) else { return }
    for key in news.keys { current.copyValue(at: key, from: news.value) }
    context.applyRemote(current)
  }

  /// Records what `flight` may have left on the backend, unless it was written ahead already:
  /// its answer was lost, so the backend may have applied it.
  private func recordPossiblyApplied(_ flight: Flight, in context: ModelContext) {
    guard !flight.isWrittenAhead else { return }
    for possible in flight.possibleOnBackend {
      context.recordUnconfirmed(possible, keys: flight.keys)
    }
  }

  /// Withdraws the values `flight` recorded as possibly on the backend: it was not applied.
  private func withdraw(_ flight: Flight, in context: ModelContext) {
    for mark in flight.writeAheadMarks {
      context.withdrawInFlight(Object.self, id: flight.id, mark: mark)
    }
  }

  /// Forgets the serials of the object `id`'s saves once no request of it is out or waits to go
  /// again: only requests compare against them.
  func forgetEditSerialsIfIdle(_ id: UUID, in context: ModelContext) {
    guard keyHolders[id] == nil, wholeHolders[id] == nil, lostAttempts[id] == nil else { return }
    context.forgetEditSerials(Object.self, id: id)
  }

  private func release(_ token: RequestToken, of flight: Flight) {
    if wholeHolders[flight.id] == token { wholeHolders[flight.id] = nil }
    for key in flight.keys where keyHolders[flight.id]?[key] == token {
      keyHolders[flight.id]?[key] = nil
    }
    if keyHolders[flight.id]?.isEmpty == true { keyHolders[flight.id] = nil }
  }

  /// The backend now holds what `acknowledgement` says for `flight`'s keys: they are cleared
  /// where the object still holds those values, and stay pending where it differs from them or
  /// from a value the backend may also hold.
  private func settle(
    _ flight: Flight, holding acknowledgement: Acknowledgement<Object>?, in context: ModelContext
  ) {
    switch flight.kind {
    case .delete:
      // A deletion that began after this one ended (news settled it while the request was
      // out, and the user deleted the object again) waits for its own request.
      guard context.endedDeletions(of: reference(flight.id)) == flight.endedDeletions else {
        return
      }
      context.clearLocalDeletion(Object.self, id: flight.id)
    case .insert, .update:
      if flight.kind == .insert { context.clearLocalInsertion(Object.self, id: flight.id) }
      guard let acknowledgement else { return }
      let held = acknowledgement.value
      // Of a set, a member the user moved that the call does not name is still the user's
      // change, whatever the backend now holds of it: only its own call's answer settles it.
      let waiting = flight.kind == .update ? membersWaiting(besides: flight, in: context) : [:]
      context.recordSynchronised(
        held, keys: flight.keys, savedUpTo: flight.kind == .update ? flight.savedUpTo : .max,
        savedAlso: { key, element in
          flight.isSavedInEarlierLife(key, element: element)
            || element.map { waiting[key]?.contains($0) == true } == true
        })
      for possible in acknowledgement.alsoPossible {
        context.recordUnconfirmed(possible, keys: flight.keys)
      }
      guard let current = context.object(Object.self, id: flight.id) else { return }
      // A key of one value the user saved again since the request went is a change of its own
      // (`recordSynchronised`): saved back to the value the answer says the backend holds, even
      // where news had already brought that value here, it goes in a request of its own, after
      // any change another device made meanwhile, unheard yet. A set's members count one by
      // one, against what the user saw when changing them.
      let changes = context.localChanges(of: Object.self)
      let base = changes.editBases[flight.id]
      let unchanged = flight.keys.filter { key in
        let savedSince =
          flight.kind == .update && !Object.field(key).holdsSet
          && flight.isSavedSince(key, in: changes)
        return !savedSince && current.hasSameValue(at: key, as: held)
          && acknowledgement.alsoPossible.allSatisfy { current.hasSameValue(at: key, as: $0) }
          && base.map { current.hasSameValue(at: key, as: $0) } ?? true
      }
      context.clearLocalChanges(Object.self, id: flight.id, keys: unchanged)
    }
  }

  /// Of `flight`'s set-valued keys, the elements the user's change moves from the edit base
  /// that the call does not name: they wait for a call of their own.
  private func membersWaiting(besides flight: Flight, in context: ModelContext)
    -> [Object.Key: Set<SetElement>]
  {
    let setKeys = flight.keys.intersection(Object.schema.setKeys)
    guard !setKeys.isEmpty,
      let base = context.localChanges(of: Object.self).editBases[flight.id],
      let current = context.object(Object.self, id: flight.id)
    else { return [:] }
    let named = flight.endpoint.namedElements
    var waiting: [Object.Key: Set<SetElement>] = [:]
    for key in setKeys {
      let moved = Set(current.changedElements(at: key, comparedTo: base)).subtracting(named)
      if !moved.isEmpty { waiting[key] = moved }
    }
    return waiting
  }

  /// What happened here since `flight` went that makes a refusal of it moot, said as the end
  /// of the refusal's reason: the object was deleted (by the user, or by the server's news),
  /// every key it carried holds a newer value, or, for a deletion, the strategy would no longer
  /// send it (a message whose conversation the user left since is only removed here).
  ///
  /// The newer change goes next; the refused one is given up instead of blocking it behind a
  /// failure the app would have to act on, or leaving one on an object that is gone.
  private func supersession(of flight: Flight, in context: ModelContext) -> String? {
    let changes = context.localChanges(of: Object.self)
    if flight.kind == .delete {
      guard needsNoRequest(deletionOf: flight.id, changes, in: context) else { return nil }
      return "it needs no request any more"
    }
    if changes.deleted.contains(flight.id) || context.object(Object.self, id: flight.id) == nil {
      return "it was deleted here since"
    }
    if flight.kind == .update, stillAsSent(flight, in: context).isEmpty {
      return "it was changed here since"
    }
    return nil
  }

  /// The keys of `flight` not changed here since the request went: what a refusal of it may
  /// give back.
  ///
  /// A key changed here since holds a newer edit the backend has not refused, which stays
  /// pending. The comparison is with the object as it was here, not with what the request sent,
  /// which for part of a change (a member removal before an addition) differs from the start.
  private func stillAsSent(_ flight: Flight, in context: ModelContext) -> Set<Object.Key> {
    guard flight.kind == .update, let before = flight.local ?? flight.sent,
      let current = context.object(Object.self, id: flight.id)
    else { return flight.keys }
    return flight.keys.filter { current.hasSameValue(at: $0, as: before) }
  }

  /// Gives a change up: an insert is dropped locally (and deleted on the backend if an earlier
  /// attempt or another user may have made it there, or, if the backend never deletes such an
  /// object, kept as the backend holds it), a deletion undone (the object of a given-up creation
  /// comes back as new), and an update's `keys` go back to the values the backend has.
  ///
  /// Where an earlier request for a key may have been applied without an answer, the backend
  /// may hold that request's value instead; such a key takes the last acknowledged value too,
  /// but stays pending, so the next request makes the backend hold it for sure.
  private func revert(
    _ kind: UpstreamChangeKind, _ id: UUID, keys: Set<Object.Key>, in context: ModelContext
  ) {
    let changes = context.localChanges(of: Object.self)
    switch kind {
    case .insert:
      guard let possible = changes.backendValue(of: id) else {
        context.discardLocally(Object.self, id: id)
        return
      }
      if Self.backendNeverDeletes(possible, in: context) {
        // Dropped here, it would be lost for good: no request can delete it there, and the news
        // that it is there were read already (a contact's own request to connect, which shares
        // the id of the one the backend refused).
        context.applyRemoteDeletion(Object.self, id: id)
        context.applyRemote(possible)
      } else {
        context.discardInsertion(Object.self, id: id, backendMayHold: possible)
      }
    case .delete:
      guard let lastKnown = changes.originals[id] else {
        context.clearLocalDeletion(Object.self, id: id)
        return
      }
      if changes.unconfirmed[id]?.contains(where: { !$0.keys.isEmpty }) == true {
        // The deletion of a given-up creation: the backend only may hold the object.
        context.restoreInsertion(lastKnown)
      } else {
        context.clearLocalDeletion(Object.self, id: id)
        context.applyRemote(lastKnown)
      }
    case .update:
      guard !keys.isEmpty else { return }
      guard let original = changes.originals[id], var reverted = context.object(Object.self, id: id)
      else {
        context.clearLocalChanges(Object.self, id: id, keys: keys)
        return
      }
      for key in keys { reverted.copyValue(at: key, from: original) }
      let uncertain = keys.filter { key in
        (changes.unconfirmed[id] ?? []).contains { possible in
          possible.keys.contains(key) && !possible.value.hasSameValue(at: key, as: original)
        }
      }
      context.clearLocalChanges(Object.self, id: id, keys: keys.subtracting(uncertain))
      // A remote value takes the keys that are no longer pending; the pending ones take it as
      // an edit of this context, which the next request carries.
      context.applyRemote(reverted)
      if !uncertain.isEmpty { _ = try? context.update(Object.self, id: id) { $0 = reverted } }
    }
  }

  /// Whether the backend never deletes `object` (a connection), so that a deletion of it can
  /// never be sent.
  private static func backendNeverDeletes(_ object: Object, in context: ModelContext) -> Bool {
    object.deletionViolations(in: context).contains { rule in
      if case .deletionNotSynchronisable = rule { true } else { false }
    }
  }

  // MARK: - Failures the app acts on

  /// Sends the refused change of `id` again; returns whether there was one.
  func retry(_ id: UUID, in context: ModelContext) -> Bool {
    guard context.localChanges(of: Object.self).failure(of: id) != nil else { return false }
    context.clearPushFailure(Object.self, id: id)
    strategy.willRetry(id, in: context)
    return true
  }

  /// Gives up the refused change of `id`: the object returns to what the backend has, except
  /// for keys another request of it still carries (its answer settles them); returns whether
  /// there was one.
  func discard(_ id: UUID, in context: ModelContext) -> Bool {
    let changes = context.localChanges(of: Object.self)
    guard changes.failure(of: id) != nil else { return false }
    let kind: UpstreamChangeKind =
      changes.inserted.contains(id) ? .insert : changes.deleted.contains(id) ? .delete : .update
    let inFlight = keyHolders[id].map { Set($0.keys) } ?? []
    revert(kind, id, keys: changes.keys(of: id).subtracting(inFlight), in: context)
    context.clearPushFailure(Object.self, id: id)
    return true
  }
}
