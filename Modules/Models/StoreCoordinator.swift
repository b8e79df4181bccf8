import Seams

/// Serialises the saves of a stack's contexts, commits each to the store with the change-log
/// records it implies, and hands each saved change set to the other context.
///
/// It keeps the change log as the store holds it, so that a UI save writes the records it
/// creates in the same transaction as its objects: a crash between the UI's save and the sync
/// context's merge loses nothing.
final class StoreCoordinator: Sendable {
  /// What a context's save prepared, under the coordinator's lock.
  struct PreparedSave {
    /// The objects the save changes.
    let changes: ChangeSet
    /// For a UI save, the objects as they were before it, for the originals of first changes.
    let before: Tables
    /// For a sync save, the change-log records the sync context changed since its last save.
    let records: ChangeLogRecords
    /// For a sync save, the metadata if it changed.
    let metadata: SyncMetadata?
  }

  private struct State {
    var inboxes: [ContextRole: [ChangeSet]] = [:]
    var deliveries: [ContextRole: @Sendable () -> Void] = [:]
    /// The change log as the store holds it.
    var durableLog: LocalChangeLog
  }

  let store: any ModelStore
  let entities: EntityRegistry
  private let state: Locked<State>

  init(store: any ModelStore, entities: EntityRegistry, changeLog: ChangeLogRecords) {
    self.store = store
    self.entities = entities
    self.state = Locked(
      State(durableLog: LocalChangeLog(records: changeLog, entities: entities)))
  }

  func setDelivery(for role: ContextRole, _ delivery: @escaping @Sendable () -> Void) {
    state.withLock { $0.deliveries[role] = delivery }
  }

  func takeInbox(of role: ContextRole) -> [ChangeSet] {
    state.withLock { state in
      let mail = state.inboxes[role] ?? []
      state.inboxes[role] = nil
      return mail
    }
  }

  /// Runs `read` on what `role`'s context saved or merged last, as the store holds it: the
  /// context's inbox cannot change meanwhile.
  func read<Value>(
    for role: ContextRole, _ read: (SavedView) throws -> Value
  ) throws -> Value {
    try state.withLock { state in
      try read(SavedView(store: store, inbox: state.inboxes[role] ?? []))
    }
  }

  /// Saves for `role`: `prepare` merges the context's inbox and returns what to save; the store
  /// commits it with its change-log records, and the other context gets the changes.
  ///
  /// `prepare` runs with the coordinator's lock held, so it reads the store through the view it
  /// is given, which holds what the context will have once it merged the inbox.
  func save(
    from role: ContextRole,
    _ prepare: (_ mail: [ChangeSet], _ view: SavedView) -> Result<PreparedSave, SaveError>
  ) -> Result<ChangeSet, SaveError> {
    let (result, delivery) = state.withLock {
      state -> (Result<ChangeSet, SaveError>, (@Sendable () -> Void)?) in
      let mail = state.inboxes[role] ?? []
      state.inboxes[role] = nil
      let prepared: PreparedSave
      switch prepare(mail, SavedView(store: store, inbox: [])) {
      case .success(let value): prepared = value
      case .failure(let error): return (.failure(error), nil)
      }
      var log = state.durableLog
      let records: ChangeLogRecords
      switch role {
      case .ui:
        log.recordSave(prepared.changes, committed: prepared.before)
        records = log.records(for: prepared.changes.references, entities: entities)
      case .sync:
        records = prepared.records
        log.overlay(records, entities: entities)
      }
      let save = StoreSave(
        changes: prepared.changes, changeLog: records, metadata: prepared.metadata)
      guard !save.isEmpty else { return (.success(prepared.changes), nil) }
      do {
        try store.commit(save)
      } catch {
        return (.failure(.store(String(describing: error))), nil)
      }
      state.durableLog = log
      guard !prepared.changes.isEmpty else { return (.success(prepared.changes), nil) }
      let other: ContextRole = role == .ui ? .sync : .ui
      state.inboxes[other, default: []].append(prepared.changes)
      return (.success(prepared.changes), state.deliveries[other])
    }
    delivery?()
    return result
  }
}
