import Seams

/// A store that keeps everything in memory: fresh and isolated for each test, gone with the
/// process.
public final class InMemoryStore: ModelStore {
  private let state: Locked<StoredState>

  /// Creates a store holding `tables`, with nothing pending; empty by default.
  public convenience init(_ tables: Tables = Tables()) {
    self.init(state: StoredState(tables: tables))
  }

  /// Creates a store holding `state`.
  public init(state: StoredState) {
    self.state = Locked(state)
  }

  /// A copy of everything the store holds.
  public func load() -> StoredState {
    state.withLock { $0 }
  }

  /// Applies `save` in memory.
  public func commit(_ save: StoreSave) {
    state.withLock { $0.apply(save) }
  }
}
