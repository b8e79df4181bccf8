import Foundation
import HTTPRequest
import Models
import Transport

/// A change ready to be considered, with where it goes in line.
struct Candidate: Sendable {
  let item: SyncQueueSnapshot.Item
  let order: Double
}

/// A strategy with its entity erased, so the tracker can hold strategies of every entity; each
/// closure opens the strategy's own types again.
struct ErasedStrategy: Sendable {
  let candidates: @Sendable (ModelContext) -> [Candidate]
  let dependencies: @Sendable (SyncQueueSnapshot.Item, ModelContext) -> [ObjectReference]
  let prepare:
    @Sendable (SyncQueueSnapshot.Item, ModelContext) throws -> (HTTPRequest, (any ModelObject)?)?
  let settle: @Sendable (SyncQueueSnapshot.Item, (any ModelObject)?, ModelContext) -> Void
  let succeed:
    @Sendable (SyncQueueSnapshot.Item, (any ModelObject)?, TransportResponse, ModelContext) -> Void
  let fail:
    @Sendable (SyncQueueSnapshot.Item, (any ModelObject)?, TransportResponse?, String, ModelContext)
      -> PermanentFailureDecision

  init<Strategy: UpstreamStrategy>(_ strategy: Strategy) {
    typealias Object = Strategy.Object
    let entity = Object.entityName

    @Sendable func change(_ item: SyncQueueSnapshot.Item, _ context: ModelContext)
      -> UpstreamChange<Object>
    {
      let keys = Set(item.keys.compactMap(Object.Key.init(rawValue:)))
      let object = item.kind == .delete ? nil : context.object(Object.self, id: item.object.id)
      return UpstreamChange(kind: item.kind, id: item.object.id, object: object, keys: keys)
    }

    candidates = { context in
      let changes = context.localChanges(of: Object.self)
      var found: [Candidate] = []
      for id in changes.inserted {
        guard let object = context.object(Object.self, id: id) else { continue }
        guard strategy.isSynchronised(object, in: context) else {
          context.clearLocalInsertion(Object.self, id: id)
          continue
        }
        found.append(
          Candidate(
            item: .init(object: ObjectReference(entity, id), kind: .insert, keys: []),
            order: strategy.order(of: object)))
      }
      for (id, keys) in changes.updatedKeys where !changes.inserted.contains(id) {
        guard let object = context.object(Object.self, id: id) else { continue }
        let pushable =
          strategy.isSynchronised(object, in: context)
          ? keys.intersection(strategy.pushableKeys) : []
        let local = keys.subtracting(pushable)
        if !local.isEmpty { context.clearLocalChanges(Object.self, id: id, keys: local) }
        guard !pushable.isEmpty else { continue }
        found.append(
          Candidate(
            item: .init(
              object: ObjectReference(entity, id), kind: .update,
              keys: pushable.map(\.rawValue).sorted()),
            order: strategy.order(of: object)))
      }
      for id in changes.deleted {
        found.append(
          Candidate(
            item: .init(object: ObjectReference(entity, id), kind: .delete, keys: []),
            order: 0))
      }
      return found
    }

    dependencies = { item, context in
      strategy.dependencies(of: change(item, context), in: context)
    }

    prepare = { item, context in
      let change = change(item, context)
      guard let request = try strategy.request(for: change, in: context) else { return nil }
      return (request, strategy.sentValue(for: change, in: context))
    }

    settle = { item, snapshot, context in
      let id = item.object.id
      switch item.kind {
      case .delete:
        context.clearLocalDeletion(Object.self, id: id)
      case .insert, .update:
        if item.kind == .insert { context.clearLocalInsertion(Object.self, id: id) }
        let keys =
          item.kind == .insert
          ? context.localChanges(of: Object.self).keys(of: id)
          : Set(item.keys.compactMap(Object.Key.init(rawValue:)))
        let current = context.object(Object.self, id: id)
        let sent = snapshot as? Object
        if let sent { context.recordSynchronised(sent, keys: keys) }
        let changedSinceSent =
          if let sent, let current { current.changedKeys(comparedTo: sent) } else {
            Set<Object.Key>()
          }
        let unchanged = keys.subtracting(changedSinceSent)
        context.clearLocalChanges(Object.self, id: id, keys: unchanged)
      }
    }

    succeed = { item, snapshot, response, context in
      let change = UpstreamChange(
        kind: item.kind, id: item.object.id, object: snapshot as? Object,
        keys: Set(item.keys.compactMap(Object.Key.init(rawValue:))))
      strategy.didSucceed(change, response: response, in: context)
    }

    fail = { item, snapshot, response, reason, context in
      let change = UpstreamChange(
        kind: item.kind, id: item.object.id, object: snapshot as? Object,
        keys: Set(item.keys.compactMap(Object.Key.init(rawValue:))))
      return strategy.didFailPermanently(change, response: response, reason: reason, in: context)
    }
  }
}
