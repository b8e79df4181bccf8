import Seams

/// A store that keeps everything in memory: fresh and isolated for each test, gone with the
/// process.
///
/// A commit is kept as it is and applied when the state is next read (``load()``), or once
/// ``pendingLimit`` commits wait: most stores of tests are written far more often than read
/// back, and each save then costs the store an append, not a second copy of the work every
/// context already did. What ``load()`` returns is the same either way.
package final class InMemoryStore: ModelStore {
  /// How many commits may wait before they are applied, so that a store written for long
  /// without being read keeps no more than that many saves besides its state.
  package static let pendingLimit = 256

  private struct State {
    var applied: StoredState
    var pending: [StoreSave] = []

    /// Applies the commits that wait, in the order they came.
    mutating func applyPending() {
      for save in pending { applied.apply(save) }
      pending = []
    }
  }

  private let state: Locked<State>

  /// Creates a store holding `tables`, with nothing pending; empty by default.
  package convenience init(_ tables: Tables = Tables()) {
    self.init(state: StoredState(tables: tables))
  }

  /// Creates a store holding `state`.
  package init(state: StoredState) {
    self.state = Locked(State(applied: state))
  }

  /// A copy of everything the store holds, every commit applied.
  package func load() -> StoredState {
    state.withLock { state in
      state.applyPending()
      return state.applied
    }
  }

  /// Keeps `save`, to apply when the state is read or when ``pendingLimit`` commits wait.
  package func commit(_ save: StoreSave) {
    state.withLock { state in
      state.pending.append(save)
      if state.pending.count >= Self.pendingLimit { state.applyPending() }
    }
  }
}
