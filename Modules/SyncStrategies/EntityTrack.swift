import CourierAPI
import Foundation
import HTTPRequest
import Models

/// One local change the tracker could send: which object, what kind, and where it goes in line.
struct Work: Sendable {
  let object: ObjectReference
  let kind: UpstreamChangeKind
  let keys: KeySet
  let track: Int
  let order: Double

  var item: SyncQueueSnapshot.Item {
    SyncQueueSnapshot.Item(object: object, kind: kind, keys: keys)
  }
}

/// What other objects' changes need to know about an object with local changes.
struct ObjectState: Sendable {
  /// Its insert has not been acknowledged yet.
  var pendingInsert = false
  /// It has a change pending or in flight.
  var hasWork = false
  /// Its change was refused for good.
  var failure: PushFailure?
}

/// What one pass over the change log found.
struct Survey: Sendable {
  var states: [ObjectReference: ObjectState] = [:]
  var work: [Work] = []
  var failed: [SyncQueueSnapshot.Failure] = []
}

/// The outcome of preparing one piece of work.
enum Preparation: Sendable {
  /// Send this; `leftover` says keys of the change remain for a later request.
  case request(UpstreamRequest, leftover: Bool)
  /// Nothing to send now: the change was local only, or is busy after all.
  case nothing
  /// The request could not be built; the change is marked failed.
  case failed
}

/// The tracker's state and rules for one entity, typed by the entity's strategy: which requests
/// are in flight and which keys each holds.
///
/// Unchecked `Sendable`: every method is called with the tracker's lock held, which guards the
/// mutable state.
final class EntityTrack<Strategy: UpstreamStrategy>: @unchecked Sendable {
  typealias Object = Strategy.Object

  /// A request in flight for one object.
  struct Flight {
    let id: UUID
    let kind: UpstreamChangeKind
    let keys: Set<Object.Key>
    let sent: Object?
    let endpoint: Endpoint
  }

  let strategy: Strategy
  let position: Int
  private var flights: [RequestToken: Flight] = [:]
  /// For each object, which request carries each of its keys in flight.
  private var keyHolders: [UUID: [Object.Key: RequestToken]] = [:]
  /// For each object, the insert or deletion in flight, which holds the whole object.
  private var wholeHolders: [UUID: RequestToken] = [:]

  init(_ strategy: Strategy, position: Int) {
    self.strategy = strategy
    self.position = position
  }

  private func reference(_ id: UUID) -> ObjectReference { ObjectReference(Object.entityName, id) }

  // MARK: - Surveying the change log

  /// Goes through the entity's local changes: takes off the log what is local only, notes each
  /// object's state for the objects that depend on it, and lists the work that could go now.
  func survey(in context: ModelContext, into survey: inout Survey) {
    let changes = context.localChanges(of: Object.self)
    let ids = changes.objectIDs.union(keyHolders.keys).union(wholeHolders.keys)
    for id in ids {
      let reference = reference(id)
      let whole = wholeHolders[id].flatMap { flights[$0] }
      let failure = changes.failure(of: id)
      survey.states[reference] = ObjectState(
        pendingInsert: changes.inserted.contains(id) || whole?.kind == .insert, hasWork: true,
        failure: failure)
      if let failure {
        survey.failed.append(
          .init(object: reference, reason: failure.reason, status: failure.status))
        continue
      }
      guard let (kind, keys) = pendingWork(id, changes, in: context) else { continue }
      let order =
        (kind == .delete ? changes.originals[id] : context.object(Object.self, id: id))
        .map(strategy.order(of:)) ?? 0
      survey.work.append(
        Work(
          object: reference, kind: kind, keys: KeySet(kind == .update ? keys : [], of: Object.self),
          track: position, order: order))
    }
  }

  /// What of the object's local change could be sent now, if anything; changes the backend does
  /// not keep are taken off the log on the way.
  private func pendingWork(
    _ id: UUID, _ changes: LocalChanges<Object>, in context: ModelContext
  ) -> (UpstreamChangeKind, Set<Object.Key>)? {
    let busyKeys = keyHolders[id].map { Set($0.keys) } ?? []
    let busy = wholeHolders[id] != nil || !busyKeys.isEmpty
    if changes.deleted.contains(id) {
      guard let lastKnown = changes.originals[id], strategy.isSynchronised(lastKnown, in: context)
      else {
        context.clearLocalDeletion(Object.self, id: id)
        return nil
      }
      return busy ? nil : (.delete, [])
    }
    guard let object = context.object(Object.self, id: id) else { return nil }
    guard strategy.isSynchronised(object, in: context) else {
      context.clearLocalInsertion(Object.self, id: id)
      context.clearLocalChanges(Object.self, id: id, keys: changes.keys(of: id))
      return nil
    }
    if changes.inserted.contains(id) {
      return busy ? nil : (.insert, Set(Object.Key.allCases))
    }
    let dirty = changes.keys(of: id)
    let local = dirty.subtracting(strategy.pushableKeys)
    if !local.isEmpty { context.clearLocalChanges(Object.self, id: id, keys: local) }
    let free = dirty.intersection(strategy.pushableKeys).subtracting(busyKeys)
    guard wholeHolders[id] == nil, !free.isEmpty else { return nil }
    return (.update, free)
  }

  /// The change `work` stands for, read from the context as it is now.
  private func change(
    _ kind: UpstreamChangeKind, _ id: UUID, keys: Set<Object.Key>, in context: ModelContext
  )
    -> UpstreamChange<Object>
  {
    let changes = context.localChanges(of: Object.self)
    let object = kind == .delete ? nil : context.object(Object.self, id: id)
    return UpstreamChange(
      kind: kind, id: id, object: object, lastKnown: changes.originals[id], keys: keys)
  }

  /// What must happen on the backend before `work` may go.
  func dependencies(of work: Work, in context: ModelContext) -> [SyncDependency] {
    let keys = work.keys.typed(Object.self) ?? []
    return strategy.dependencies(
      of: change(work.kind, work.object.id, keys: keys, in: context), in: context)
  }

  // MARK: - Handing out requests

  /// Asks the strategy for the call that pushes `work`, as the change stands now, and records
  /// it as in flight under `token`.
  func prepare(_ work: Work, token: RequestToken, in context: ModelContext) -> Preparation {
    let id = work.object.id
    let changes = context.localChanges(of: Object.self)
    guard changes.failure(of: id) == nil, let (kind, keys) = pendingWork(id, changes, in: context)
    else { return .nothing }
    let change = change(kind, id, keys: keys, in: context)
    let action: UpstreamAction<Object>
    do {
      action = try strategy.action(for: change, in: context)
    } catch {
      markFailed(id, reason: "cannot build the request: \(error)", in: context)
      return .failed
    }
    switch action {
    case .localOnly:
      settleLocally(kind, id, keys: keys, in: context)
      return .nothing
    case .send(let endpoint, let carrying, let sent):
      let carried = kind == .update ? carrying.intersection(keys) : kind == .insert ? keys : []
      if kind == .update && carried.isEmpty {
        markFailed(
          id, reason: "the strategy's request carries none of the changed keys", in: context)
        return .failed
      }
      let request: HTTPRequest
      do {
        request = try endpoint.request()
      } catch {
        markFailed(id, reason: "cannot build the request: \(error)", in: context)
        return .failed
      }
      flights[token] = Flight(
        id: id, kind: kind, keys: carried, sent: sent ?? change.object, endpoint: endpoint)
      if kind == .update {
        for key in carried { keyHolders[id, default: [:]][key] = token }
      } else {
        wholeHolders[id] = token
      }
      let item = SyncQueueSnapshot.Item(
        object: work.object, kind: kind,
        keys: KeySet(kind == .update ? carried : [], of: Object.self))
      return .request(
        UpstreamRequest(token: token, endpoint: endpoint, request: request, item: item),
        leftover: kind == .update && carried != keys)
    }
  }

  private func markFailed(_ id: UUID, reason: String, in context: ModelContext) {
    context.markPushFailed(Object.self, id: id, PushFailure(reason: reason))
  }

  /// Takes a local-only change off the log.
  private func settleLocally(
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

  // MARK: - Settling outcomes

  /// Applies how the request `token` ended: the keys it carried are settled only if they still
  /// hold what it sent; any other key of the object keeps its own state.
  func complete(_ token: RequestToken, _ outcome: UpstreamOutcome, in context: ModelContext)
    -> UpstreamCompletion
  {
    guard let flight = flights.removeValue(forKey: token) else { return .unknownToken(token) }
    release(token, of: flight)
    let reference = reference(flight.id)
    let sent = SentChange(
      kind: flight.kind, id: flight.id, keys: flight.keys, sent: flight.sent,
      endpoint: flight.endpoint)
    switch outcome {
    case .success(let response):
      settle(flight, in: context)
      strategy.didSucceed(sent, response: response, in: context)
      return .settled(reference)
    case .temporary(let failure):
      return .retrying(reference, retryIn: .zero, failure)
    case .permanent(let failure):
      switch strategy.didFailPermanently(sent, failure: failure, in: context) {
      case .markFailed(let reason):
        let record = PushFailure(
          reason: reason, status: failure.status, label: failure.label?.rawValue)
        context.markPushFailed(Object.self, id: flight.id, record)
        return .failed(reference, record)
      case .revert(let reason):
        revert(flight.kind, flight.id, keys: flight.keys, in: context)
        return .reverted(reference, reason: reason)
      case .alreadyApplied:
        settle(flight, in: context)
        return .settled(reference)
      }
    }
  }

  private func release(_ token: RequestToken, of flight: Flight) {
    if wholeHolders[flight.id] == token { wholeHolders[flight.id] = nil }
    for key in flight.keys where keyHolders[flight.id]?[key] == token {
      keyHolders[flight.id]?[key] = nil
    }
    if keyHolders[flight.id]?.isEmpty == true { keyHolders[flight.id] = nil }
  }

  /// The backend now holds what `flight` sent: its keys are cleared where the object still holds
  /// the sent values, and stay pending where it changed since.
  private func settle(_ flight: Flight, in context: ModelContext) {
    switch flight.kind {
    case .delete:
      context.clearLocalDeletion(Object.self, id: flight.id)
    case .insert, .update:
      if flight.kind == .insert { context.clearLocalInsertion(Object.self, id: flight.id) }
      guard let sent = flight.sent else { return }
      context.recordSynchronised(sent, keys: flight.keys)
      guard let current = context.object(Object.self, id: flight.id) else { return }
      let unchanged = flight.keys.filter { current.hasSameValue(at: $0, as: sent) }
      context.clearLocalChanges(Object.self, id: flight.id, keys: unchanged)
    }
  }

  /// Gives a change up: an insert is dropped locally, a deletion undone, and an update's `keys`
  /// go back to the values the backend has.
  private func revert(
    _ kind: UpstreamChangeKind, _ id: UUID, keys: Set<Object.Key>, in context: ModelContext
  ) {
    let changes = context.localChanges(of: Object.self)
    switch kind {
    case .insert:
      context.discardLocally(Object.self, id: id)
    case .delete:
      let lastKnown = changes.originals[id]
      context.clearLocalDeletion(Object.self, id: id)
      if let lastKnown { context.applyRemote(lastKnown) }
    case .update:
      guard let original = changes.originals[id], var reverted = context.object(Object.self, id: id)
      else {
        context.clearLocalChanges(Object.self, id: id, keys: keys)
        return
      }
      for key in keys { reverted.copyValue(at: key, from: original) }
      context.clearLocalChanges(Object.self, id: id, keys: keys)
      context.applyRemote(reverted)
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

  /// Gives up the refused change of `id`: the object returns to what the backend has; returns
  /// whether there was one.
  func discard(_ id: UUID, in context: ModelContext) -> Bool {
    let changes = context.localChanges(of: Object.self)
    guard changes.failure(of: id) != nil else { return false }
    let kind: UpstreamChangeKind =
      changes.inserted.contains(id) ? .insert : changes.deleted.contains(id) ? .delete : .update
    revert(kind, id, keys: changes.keys(of: id), in: context)
    context.clearPushFailure(Object.self, id: id)
    return true
  }
}

/// What the tracker asks of an entity's track without knowing the entity statically.
protocol AnyEntityTrack: AnyObject, Sendable {
  var entityName: EntityName { get }
  var inFlightItems: [SyncQueueSnapshot.Item] { get }
  var inFlightCount: Int { get }
  func survey(in context: ModelContext, into survey: inout Survey)
  func dependencies(of work: Work, in context: ModelContext) -> [SyncDependency]
  func prepare(_ work: Work, token: RequestToken, in context: ModelContext) -> Preparation
  func complete(_ token: RequestToken, _ outcome: UpstreamOutcome, in context: ModelContext)
    -> UpstreamCompletion
  func retry(_ id: UUID, in context: ModelContext) -> Bool
  func discard(_ id: UUID, in context: ModelContext) -> Bool
}

extension EntityTrack: AnyEntityTrack {
  var entityName: EntityName { Object.entityName }
}
