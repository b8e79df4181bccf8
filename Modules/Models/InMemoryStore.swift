import Seams

/// A store that keeps everything in memory: fresh and isolated for each test, gone with the
/// process.
public final class InMemoryStore: ModelStore {
  private let tables: Locked<Tables>

  /// Creates a store holding `tables`; empty by default.
  public init(_ tables: Tables = Tables()) {
    self.tables = Locked(tables)
  }

  /// A copy of everything the store holds.
  public func load() -> Tables {
    tables.withLock { $0 }
  }

  /// Applies `changes` to the tables in memory.
  public func commit(_ changes: ChangeSet) {
    tables.withLock { $0.apply(changes) }
  }
}
