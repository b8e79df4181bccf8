import CourierAPI
import Foundation
import HTTPRequest
import Models

/// The tracker's state and rules for one entity, typed by the entity's strategy: which requests
/// are in flight and which keys each holds.
///
/// Unchecked `Sendable`: every method is called with the tracker's lock held, which guards the
/// mutable state.
final class EntityTrack<Strategy: UpstreamStrategy>: @unchecked Sendable {
  typealias Object = Strategy.Object

  /// A request in flight for one object.
  ///
  /// What the request is stays fixed once it is made, and lives on the heap, shared by the
  /// flight's copies: a dictionary of thousands of flights (a drain hands out every ready
  /// request at once) holds a pointer and a few counters per flight, not three objects.
  struct Flight {
    /// What the request is, fixed when it is made.
    private let content: Content

    /// The object the request is for.
    var id: UUID { content.id }
    /// Whether it inserts, updates or deletes the object.
    var kind: UpstreamChangeKind { content.kind }
    /// The keys it carries.
    var keys: Set<Object.Key> { content.keys }
    /// The values it carries.
    var sent: Object? { content.sent }
    /// The object here when the request went, which may differ from ``sent`` where the request
    /// carries only part of a change (a member removal before an addition): a key that differs
    /// from it now was changed here since.
    var local: Object? { content.local }
    /// For a deletion, how many deletions of the object had left the log when it went
    /// (``ModelContext/endedDeletions(of:)``): a deletion pending at its answer counts as its
    /// own only if none ended since.
    var endedDeletions: Int { content.endedDeletions }
    /// Other values the backend may hold for `keys` once the request is applied.
    var alsoPossible: [Object] { content.alsoPossible }
    /// The object as the backend last had it when the request was made.
    var lastKnown: Object? { content.lastKnown }
    /// Other values the backend may have held for the keys when the request was made.
    var unconfirmed: [Object] { content.unconfirmed }
    /// The call it makes.
    var endpoint: Endpoint { content.endpoint }
    /// Where the request started listening to what notifications say the backend holds for the
    /// object; set for updates.
    ///
    /// An insert needs no trail: the news about it came after it, so where the keys ended is all
    /// that matters.
    var trail: ServerTrailMark? { content.trail }

    /// The serial of the last save of the object's entity when the request went
    /// (`LocalChanges.editSerial`): a key or element whose last save has a higher serial
    /// (`LocalChanges.lastEdits`, `LocalChanges.lastElementEdits`) was edited again since.
    var savedUpTo = 0
    /// For a call an earlier life of the app sent, the keys its record says the user saved
    /// after it went (`UnconfirmedValue.savedSince`), edited again since as a later serial is;
    /// of a set, the elements that differ from the call's value.
    var savedInEarlierLife: [Object.Key: Set<SetElement>] = [:]

    /// Whether the user saved `key` (or its `element`) in an earlier life, after the call went.
    func isSavedInEarlierLife(_ key: Object.Key, element: SetElement? = nil) -> Bool {
      guard let elements = savedInEarlierLife[key] else { return false }
      return element.map(elements.contains) ?? true
    }

    /// Whether the user saved `key` (or its `element`) after the call went, in this life (by
    /// the save serials in `changes`) or in an earlier one.
    func isSavedSince(
      _ key: Object.Key, element: SetElement? = nil, in changes: LocalChanges<Object>
    ) -> Bool {
      isSavedInEarlierLife(key, element: element)
        || !changes.isUnsaved(id, at: key, element: element, since: savedUpTo)
    }
    /// The idempotency key the request went with: the same call sent again after its answer
    /// was lost goes with the same key, so the server applies it at most once.
    var idempotencyKey = ""
    /// The server's version of the object's last synchronised value when the request went, for
    /// an update sent again under the key of an earlier life of the app that never heard its
    /// answer.
    ///
    /// News that life heard after the answer's version came after the request.
    var earlierLifeVersion: Int?
    /// Whether an earlier attempt of this call, under the same key, may have been applied.
    ///
    /// Its answer was lost: until an attempt is answered, the call stays one the backend may
    /// have applied, whatever becomes of this attempt, and keeps its idempotency key.
    var mayBeAppliedAlready = false
    /// The marks of the records written ahead for the request, one per value in
    /// ``possibleOnBackend``; what it withdraws if it surely was not applied.
    var writeAheadMarks: [WriteAheadMark] = []

    init(
      id: UUID, kind: UpstreamChangeKind, keys: Set<Object.Key>, sent: Object?, local: Object?,
      endedDeletions: Int, alsoPossible: [Object], lastKnown: Object?, unconfirmed: [Object],
      endpoint: Endpoint, trail: ServerTrailMark?
    ) {
      content = Content(
        id: id, kind: kind, keys: keys, sent: sent, local: local, endedDeletions: endedDeletions,
        alsoPossible: alsoPossible, lastKnown: lastKnown, unconfirmed: unconfirmed,
        endpoint: endpoint, trail: trail)
    }

    /// The values the backend may hold once the request is applied: none for a deletion.
    var possibleOnBackend: [Object] {
      guard kind != .delete, let sent else { return [] }
      return [sent] + alsoPossible
    }

    /// What the backend holds once the request is applied, as the request itself says.
    var asSent: Acknowledgement<Object>? {
      sent.map { Acknowledgement($0, alsoPossible: alsoPossible) }
    }

    /// Whether what the request carries was written ahead in the change log before it went.
    var isWrittenAhead: Bool { !writeAheadMarks.isEmpty }

    /// What a request is, fixed when it is made; see ``Flight``'s properties of the same names.
    private final class Content {
      let id: UUID
      let kind: UpstreamChangeKind
      let keys: Set<Object.Key>
      let sent: Object?
      let local: Object?
      let endedDeletions: Int
      let alsoPossible: [Object]
      let lastKnown: Object?
      let unconfirmed: [Object]
      let endpoint: Endpoint
      let trail: ServerTrailMark?

      init(
        id: UUID, kind: UpstreamChangeKind, keys: Set<Object.Key>, sent: Object?,
        local: Object?, endedDeletions: Int, alsoPossible: [Object], lastKnown: Object?,
        unconfirmed: [Object], endpoint: Endpoint, trail: ServerTrailMark?
      ) {
        self.id = id
        self.kind = kind
        self.keys = keys
        self.sent = sent
        self.local = local
        self.endedDeletions = endedDeletions
        self.alsoPossible = alsoPossible
        self.lastKnown = lastKnown
        self.unconfirmed = unconfirmed
        self.endpoint = endpoint
        self.trail = trail
      }
    }
  }

  let strategy: Strategy
  let position: Int
  /// Every key of the entity, and those the strategy pushes, worked out once.
  private let allKeys: Set<Object.Key>
  let pushableKeys: Set<Object.Key>
  /// The keys of an insert or a deletion in the queue: none, typed by the entity.
  private let noKeys: KeySet
  var flights: [RequestToken: Flight] = [:]
  /// For each object, the updates whose answers were lost, one per call, each kept to be sent
  /// again as it went: the same call, under the same idempotency key, still hearing the
  /// server's news from when it first went, so its answer, when it comes, places it in the
  /// server's order.
  var lostAttempts: [UUID: [Flight]] = [:]
  /// For each object, the call that holds the whole object (the creation of an object never
  /// changed once made, such as a message, or a deletion) when its answer was lost.
  ///
  /// Every later attempt of that call goes under its idempotency key, whatever failed in
  /// between, so the server applies it at most once. No later change of the object can make
  /// the first answer out of date; a deletion that ended and began again is a new one, with a
  /// key of its own.
  var unansweredCalls: [UUID: UnansweredCall] = [:]
  /// What this track's idempotency keys start with: unique to the track, so that keys of
  /// trackers before a restart, or of other devices, never meet.
  let keyPrefix = UUID().uuidString
  /// For each object, which request carries each of its keys in flight.
  var keyHolders: [UUID: [Object.Key: RequestToken]] = [:]
  /// For each object, the insert or deletion in flight, which holds the whole object.
  var wholeHolders: [UUID: RequestToken] = [:]

  init(_ strategy: Strategy, position: Int) {
    self.strategy = strategy
    self.position = position
    self.allKeys = Set(Object.Key.allCases)
    self.pushableKeys = strategy.pushableKeys
    self.noKeys = KeySet([], of: Object.self)
  }

  func reference(_ id: UUID) -> ObjectReference { ObjectReference(Object.entityName, id) }

  // MARK: - Surveying the change log

  /// Goes through the entity's local changes: takes off the log what is local only, notes each
  /// object's state for the objects that depend on it, and lists the work that could go now, in
  /// line (by the strategy's order, then id).
  ///
  /// The entity's objects and changes are read once for the whole survey, not once per object.
  @_specialize(where Strategy == SelfUserStrategy)
  @_specialize(where Strategy == ConnectionStrategy)
  @_specialize(where Strategy == ConversationStrategy)
  @_specialize(where Strategy == MessageStrategy)
  func survey(in context: ModelContext, into survey: inout Survey) {
    let changes = context.localChanges(of: Object.self)
    if !lostAttempts.isEmpty || !unansweredCalls.isEmpty {
      forgetSettledAttempts(changes, in: context)
    }
    guard !changes.isEmpty || !flights.isEmpty else { return }
    let lookUp = context.lookUp(Object.self)
    var work: [Work] = []
    survey.states.reserveCapacity(
      survey.states.count + changes.inserted.count
        + changes.updatedKeys.count + changes.deleted.count + flights.count)
    for id in surveyedIDs(changes) {
      let reference = reference(id)
      let wholeKind = wholeHolders[id].flatMap { flights[$0]?.kind }
      let failure = changes.failures[id]
      let isDeleted = changes.deleted.contains(id)
      // A refused deletion the strategy would no longer send (a message in a group left since)
      // waits for nobody: it is only done here now.
      if failure != nil, wholeKind == nil, isDeleted,
        needsNoRequest(deletionOf: id, changes, in: context)
      {
        context.clearLocalDeletion(Object.self, id: id)
        continue
      }
      survey.states[reference] = ObjectState(
        pendingInsert: changes.inserted.contains(id) || wholeKind == .insert, hasWork: true,
        failure: failure)
      if let failure {
        survey.failed.append(
          .init(object: reference, reason: failure.reason, status: failure.status))
        continue
      }
      let isBusy = wholeKind != nil || keyHolders[id] != nil
      guard
        let (kind, keys, object) = pendingWork(
          id, changes, object: lookUp(id), isDeleted: isDeleted, isBusy: isBusy,
          in: context)
      else { continue }
      work.append(
        Work(
          object: reference, kind: kind,
          keys: kind == .update ? KeySet(keys, of: Object.self) : noKeys,
          track: position, order: object.map(strategy.order(of:)) ?? 0))
    }
    survey.work += WorkOrder.sorted(work)
  }

  /// Every object with a local change or a request in flight, each once.
  private func surveyedIDs(_ changes: LocalChanges<Object>) -> [UUID] {
    var ids = Array(changes.inserted)
    for id in changes.updatedKeys.keys where !changes.inserted.contains(id) { ids.append(id) }
    for id in changes.deleted where !changes.inserted.contains(id) && changes.updatedKeys[id] == nil
    {
      ids.append(id)
    }
    for id in keyHolders.keys where !changes.hasChange(of: id) { ids.append(id) }
    for id in wholeHolders.keys where !changes.hasChange(of: id) && keyHolders[id] == nil {
      ids.append(id)
    }
    return ids
  }

  /// What of the object's local change could be sent now, if anything, with the object.
  ///
  /// The object is as it is now (`current`), or as it was last known for a deletion. Changes the
  /// backend does not keep are taken off the log on the way.
  private func pendingWork(
    _ id: UUID, _ changes: LocalChanges<Object>, object current: Object?, isDeleted: Bool,
    isBusy busy: Bool, in context: ModelContext
  ) -> (UpstreamChangeKind, Set<Object.Key>, Object?)? {
    if isDeleted {
      guard let lastKnown = changes.originals[id], strategy.isSynchronised(lastKnown, in: context)
      else {
        context.clearLocalDeletion(Object.self, id: id)
        return nil
      }
      return busy ? nil : (.delete, [], lastKnown)
    }
    guard let object = current else { return nil }
    guard strategy.isSynchronised(object, in: context) else {
      context.clearLocalInsertion(Object.self, id: id)
      context.clearLocalChanges(Object.self, id: id, keys: changes.keys(of: id))
      return nil
    }
    if changes.inserted.contains(id) {
      return busy ? nil : (.insert, allKeys, object)
    }
    guard let dirty = changes.updatedKeys[id] else { return nil }
    let local = dirty.subtracting(pushableKeys)
    if !local.isEmpty { context.clearLocalChanges(Object.self, id: id, keys: local) }
    guard wholeHolders[id] == nil else { return nil }
    var free = dirty.intersection(pushableKeys)
    if let busyKeys = keyHolders[id] { free.subtract(busyKeys.keys) }
    guard !free.isEmpty else { return nil }
    return (.update, free, object)
  }

  /// Whether the strategy, asked now, would only remove the object here rather than send its
  /// deletion.
  func needsNoRequest(
    deletionOf id: UUID, _ changes: LocalChanges<Object>, in context: ModelContext
  ) -> Bool {
    let now = change(.delete, id, keys: [], changes, in: context)
    guard case .localOnly? = try? strategy.action(for: now, in: context) else { return false }
    return true
  }

  /// The change `work` stands for, read from the context as it is now.
  func change(
    _ kind: UpstreamChangeKind, _ id: UUID, keys: Set<Object.Key>,
    _ changes: LocalChanges<Object>, in context: ModelContext
  ) -> UpstreamChange<Object> {
    change(
      kind, id, keys: keys, changes,
      object: kind == .delete ? nil : context.object(Object.self, id: id))
  }

  /// The change of the object `id`, now `object` here, with `keys`.
  private func change(
    _ kind: UpstreamChangeKind, _ id: UUID, keys: Set<Object.Key>,
    _ changes: LocalChanges<Object>, object: Object?
  ) -> UpstreamChange<Object> {
    var unconfirmed: [Object] = []
    if let values = changes.unconfirmed[id] {
      for value in values where !value.keys.isDisjoint(with: keys) {
        unconfirmed.append(value.value)
      }
    }
    return UpstreamChange(
      kind: kind, id: id, object: kind == .delete ? nil : object, lastKnown: changes.originals[id],
      keys: keys, unconfirmed: unconfirmed,
      editBase: kind == .update ? changes.editBases[id] : nil)
  }

  /// What must happen on the backend before each of `works` may go, asked of the strategy at
  /// once.
  @_specialize(where Strategy == SelfUserStrategy)
  @_specialize(where Strategy == ConnectionStrategy)
  @_specialize(where Strategy == ConversationStrategy)
  @_specialize(where Strategy == MessageStrategy)
  func dependencies(of works: [Work], in context: ModelContext) -> [[SyncDependency]] {
    let log = context.localChanges(of: Object.self)
    let lookUp = context.lookUp(Object.self)
    let changes = works.map { work in
      change(work.kind, work.object.id, keys: keys(of: work), log, object: lookUp(work.object.id))
    }
    return strategy.dependencies(of: changes, in: context)
  }

  // MARK: - Handing out requests

  /// The keys `work` concerns: every key for an insert, none for a deletion.
  private func keys(of work: Work) -> Set<Object.Key> {
    switch work.kind {
    case .insert: allKeys
    case .update: work.keys.typed(Object.self) ?? []
    case .delete: []
    }
  }

  /// Asks the strategy for the call that pushes `work`, and records it as in flight under
  /// `token`.
  ///
  /// The work comes from a plan that is current: the tracker plans again whenever the change
  /// log or its own state changed, so the kind and keys the survey found still hold.
  ///
  /// Specialised on this call alone, as ``complete(_:_:in:)`` is.
  @_specialize(where Strategy == SelfUserStrategy)
  @_specialize(where Strategy == ConnectionStrategy)
  @_specialize(where Strategy == ConversationStrategy)
  @_specialize(where Strategy == MessageStrategy)
  func prepare(_ work: Work, token: RequestToken, in context: ModelContext) -> Preparation {
    makeRequest(work, token: token, in: context)
  }

  private func makeRequest(_ work: Work, token: RequestToken, in context: ModelContext)
    -> Preparation
  {
    let id = work.object.id
    let kind = work.kind
    let workKeys = keys(of: work)
    let changes = context.localChanges(of: Object.self)
    let edits = changes.lastEdits[id] ?? [:]
    // An update whose answer was lost goes again as it went, so that its idempotency key has
    // the server apply it once; what the user changed since follows in a request of its own.
    if kind == .update, let attempt = takeLostAttempt(of: id, within: workKeys) {
      return resend(attempt, token: token, object: work.object, workKeys: workKeys, in: context)
    }
    // So does one an earlier life of the app sent and never heard answered, as its write-ahead
    // record keeps it.
    if kind == .update, let earlier = earlierLifeCall(of: id, within: workKeys, changes) {
      return resend(
        earlier.record, key: earlier.key, endpoint: earlier.endpoint, token: token,
        object: work.object, workKeys: workKeys, in: context)
    }
    let change = change(kind, id, keys: workKeys, changes, in: context)
    let action: UpstreamAction<Object>
    do {
      action = try strategy.action(for: change, in: context)
    } catch {
      markFailed(id, reason: "cannot build the request: \(error)", in: context)
      return .failed
    }
    switch action {
    case .localOnly:
      settleLocally(kind, id, keys: workKeys, in: context)
      return .nothing
    case .send(let endpoint, let carrying, let sent, let alsoPossible):
      let carried =
        kind == .update ? carrying.intersection(workKeys) : kind == .insert ? workKeys : []
      if kind == .update && carried.isEmpty {
        markFailed(
          id, reason: "the strategy's request carries none of the changed keys", in: context)
        return .failed
      }
      dropReplacedAttempts(of: id, sharing: carried, edits: edits, in: context)
      var flight = Flight(
        id: id, kind: kind, keys: carried, sent: sent ?? change.object, local: change.object,
        endedDeletions: kind == .delete ? context.endedDeletions(of: work.object) : 0,
        alsoPossible: alsoPossible, lastKnown: change.lastKnown,
        unconfirmed: change.unconfirmed, endpoint: endpoint,
        trail: kind == .update ? context.startServerTrail(of: Object.self, id: id) : nil)
      flight.savedUpTo = changes.editSerial
      flight.idempotencyKey =
        unansweredCalls[id].flatMap { $0.key(for: flight.endpoint, flight.endedDeletions) }
        ?? (kind == .delete ? earlierLifeKey(ofDeletion: id, endpoint, changes) : nil)
        ?? "\(keyPrefix)-\(token.value)"
      return launch(flight, token: token, object: work.object, workKeys: workKeys, in: context)
    }
  }

  /// Sends `attempt`, an update whose answer was lost, again as it went: the same call under
  /// the same idempotency key, still hearing the news it heard, and settling only the keys the
  /// user has not saved since it first went (`Flight/savedUpTo`).
  private func resend(
    _ attempt: Flight, token: RequestToken, object: ObjectReference, workKeys: Set<Object.Key>,
    in context: ModelContext
  ) -> Preparation {
    var flight = attempt
    flight.mayBeAppliedAlready = true
    flight.writeAheadMarks = []
    return launch(flight, token: token, object: object, workKeys: workKeys, in: context)
  }

  /// Builds the request `flight` describes, writes ahead what it may leave on the backend, and
  /// records it as in flight under `token`.
  func launch(
    _ flight: Flight, token: RequestToken, object: ObjectReference, workKeys: Set<Object.Key>,
    in context: ModelContext
  ) -> Preparation {
    var flight = flight
    let request: HTTPRequest
    do {
      request = try flight.endpoint.request(idempotencyKey: flight.idempotencyKey)
    } catch {
      if let trail = flight.trail {
        context.stopServerTrail(of: Object.self, id: flight.id, from: trail)
      }
      markFailed(flight.id, reason: "cannot build the request: \(error)", in: context)
      return .failed
    }
    let kind = flight.kind
    // Written ahead: if the app dies before the answer, the next one knows the backend may
    // hold these values (a member list computed against the old one would be wrong), and the
    // record of an update or a deletion keeps the call, for the next life to send again as it
    // went. A deletion's record holds no key: the call is all it keeps.
    if writesAhead(kind) {
      let call = kind == .insert ? nil : RecordedCall(request, key: flight.idempotencyKey)
      let written = kind == .delete ? flight.lastKnown.map { [$0] } ?? [] : flight.possibleOnBackend
      flight.writeAheadMarks = written.map { possible in
        context.recordInFlight(possible, keys: flight.keys, call: call)
      }
    }
    flights[token] = flight
    if kind == .update {
      for key in flight.keys { keyHolders[flight.id, default: [:]][key] = token }
    } else {
      wholeHolders[flight.id] = token
    }
    let item = SyncQueueSnapshot.Item(
      object: object, kind: kind,
      keys: KeySet(kind == .update ? flight.keys : [], of: Object.self))
    return .request(
      UpstreamRequest(token: token, endpoint: flight.endpoint, request: request, item: item),
      leftover: kind == .update && flight.keys != workKeys)
  }

  /// Takes off the lost attempts of `id` the first whose keys all still wait to be sent.
  ///
  /// Such a call may already be applied, so it goes again before any later call of its keys,
  /// whatever the user saved since: a new call carrying one of its values under a new key would
  /// have the server apply that value twice, over what another device set in between.
  private func takeLostAttempt(of id: UUID, within keys: Set<Object.Key>) -> Flight? {
    guard var attempts = lostAttempts[id],
      let index = attempts.firstIndex(where: { $0.keys.isSubset(of: keys) })
    else { return nil }
    let attempt = attempts.remove(at: index)
    lostAttempts[id] = attempts.isEmpty ? nil : attempts
    return attempt
  }

  /// Stops keeping the lost attempts of `id` that a new call of `keys` replaces.
  ///
  /// Those are the attempts that share a key with it, or whose keys the user saved since
  /// (`edits`); they stop hearing news.
  private func dropReplacedAttempts(
    of id: UUID, sharing keys: Set<Object.Key>, edits: [Object.Key: Int], in context: ModelContext
  ) {
    guard let attempts = lostAttempts.removeValue(forKey: id) else { return }
    var kept: [Flight] = []
    for attempt in attempts {
      let unchanged = attempt.keys.allSatisfy { edits[$0] ?? 0 <= attempt.savedUpTo }
      if attempt.keys.isDisjoint(with: keys) && unchanged {
        kept.append(attempt)
      } else if let trail = attempt.trail {
        context.stopServerTrail(of: Object.self, id: id, from: trail)
      }
    }
    if !kept.isEmpty { lostAttempts[id] = kept }
  }

  /// Keeps the call and key of a creation of an object that never changes once made, or of a
  /// deletion, while the backend may have applied it unheard, and forgets it once an answer
  /// came.
  func noteKey(of flight: Flight, _ outcome: UpstreamOutcome) {
    guard flight.kind == .delete || (flight.kind == .insert && pushableKeys.isEmpty) else {
      return
    }
    switch outcome {
    case .temporary(let failure) where failure.mayHaveBeenApplied:
      unansweredCalls[flight.id] = UnansweredCall(
        endpoint: flight.endpoint, key: flight.idempotencyKey,
        endedDeletions: flight.endedDeletions)
    case .temporary:
      break
    case .success, .permanent:
      unansweredCalls[flight.id] = nil
    }
  }

  /// Stops keeping the lost attempts and unanswered calls of objects with nothing left to
  /// send: their news and keys are not needed any more.
  func forgetSettledAttempts(_ changes: LocalChanges<Object>, in context: ModelContext) {
    for id in unansweredCalls.keys where !changes.hasChange(of: id) {
      unansweredCalls[id] = nil
    }
    for (id, attempts) in lostAttempts where !changes.hasChange(of: id) {
      lostAttempts[id] = nil
      for trail in attempts.compactMap(\.trail) {
        context.stopServerTrail(of: Object.self, id: id, from: trail)
      }
      forgetEditSerialsIfIdle(id, in: context)
    }
  }

  /// Whether a request of `kind` writes what it carries ahead in the change log before it goes.
  ///
  /// Updates and deletions, with their calls, for a later life of the app to send again under
  /// the same idempotency key; and inserts of objects that can change after they are made:
  /// news about such an object that come before its creation is answered are merged against
  /// what the creation sent, not against the local value. Messages are not: a drain of many of
  /// them does not pay for records it never reads, and a nonce keeps a message once.
  private func writesAhead(_ kind: UpstreamChangeKind) -> Bool {
    kind != .insert || !pushableKeys.isEmpty
  }

  func markFailed(_ id: UUID, reason: String, in context: ModelContext) {
    context.markPushFailed(Object.self, id: id, PushFailure(reason: reason))
  }

  /// Takes a local-only change off the log.
  func settleLocally(
    _ kind: UpstreamChangeKind, _ id: UUID, keys: Set<Object.Key>, in context: ModelContext
  ) {
    switch kind {
    case .insert:
      context.clearLocalInsertion(Object.self, id: id)
      context.clearLocalChanges(Object.self, id: id, keys: Set(Object.Key.allCases))
    case .update: context.clearLocalChanges(Object.self, id: id, keys: keys)
    case .delete: context.clearLocalDeletion(Object.self, id: id)
    }
  }

  /// The changes in flight, for the queue.
  var inFlightItems: [SyncQueueSnapshot.Item] {
    flights.values.map { flight in
      SyncQueueSnapshot.Item(
        object: reference(flight.id), kind: flight.kind,
        keys: KeySet(flight.kind == .update ? flight.keys : [], of: Object.self))
    }
  }

  /// How many requests are in flight.
  var inFlightCount: Int { flights.count }
}

/// What the tracker asks of an entity's track without knowing the entity statically.
protocol AnyEntityTrack: AnyObject, Sendable {
  var entityName: EntityName { get }
  var inFlightItems: [SyncQueueSnapshot.Item] { get }
  var inFlightCount: Int { get }
  func survey(in context: ModelContext, into survey: inout Survey)
  func dependencies(of works: [Work], in context: ModelContext) -> [[SyncDependency]]
  func prepare(_ work: Work, token: RequestToken, in context: ModelContext) -> Preparation
  func complete(_ token: RequestToken, _ outcome: UpstreamOutcome, in context: ModelContext)
    -> UpstreamCompletion
  func retry(_ id: UUID, in context: ModelContext) -> Bool
  func discard(_ id: UUID, in context: ModelContext) -> Bool
}

extension EntityTrack: AnyEntityTrack {
  var entityName: EntityName { Object.entityName }
}
