import Seams

/// Puts the saves of a stack's contexts in one order: each save first merges what the other
/// context saved before it, then commits to the store and leaves its change set in the other
/// context's inbox, all under one lock.
final class StoreCoordinator: Sendable {
  private struct State {
    var inboxes: [ContextRole: [ChangeSet]] = [:]
    var deliveries: [ContextRole: @Sendable () -> Void] = [:]
  }

  let store: any ModelStore
  private let state = Locked(State())

  init(store: any ModelStore) {
    self.store = store
  }

  /// Registers how `role` is told that its inbox has mail: a call that schedules a merge.
  func setDelivery(for role: ContextRole, _ delivery: @escaping @Sendable () -> Void) {
    state.withLock { $0.deliveries[role] = delivery }
  }

  /// Takes everything in the inbox of `role`, oldest first.
  func takeInbox(of role: ContextRole) -> [ChangeSet] {
    state.withLock { state in
      let mail = state.inboxes[role] ?? []
      state.inboxes[role] = nil
      return mail
    }
  }

  /// Runs one save of `role` under the lock: `prepare` receives the inbox to merge and returns
  /// the change set to commit (or an error); on success the change set is committed and posted
  /// to the other context, which is then told.
  func save(
    from role: ContextRole,
    _ prepare: ([ChangeSet]) -> Result<ChangeSet, SaveError>
  ) -> Result<ChangeSet, SaveError> {
    let (result, delivery) = state.withLock {
      state -> (Result<ChangeSet, SaveError>, (@Sendable () -> Void)?) in
      let mail = state.inboxes[role] ?? []
      state.inboxes[role] = nil
      let prepared = prepare(mail)
      guard case .success(let changes) = prepared, !changes.isEmpty else { return (prepared, nil) }
      do {
        try store.commit(changes)
      } catch {
        return (.failure(.store(String(describing: error))), nil)
      }
      let other: ContextRole = role == .ui ? .sync : .ui
      state.inboxes[other, default: []].append(changes)
      return (prepared, state.deliveries[other])
    }
    delivery?()
    return result
  }
}
