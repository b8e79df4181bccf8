import Foundation
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
    /// The commits that wait, without their metadata.
    var pending: [StoreSave] = []
    /// The metadata of the last waiting commit that carried some: each replaces the whole
    /// metadata, so only the last counts, and keeping each would keep a copy per save.
    var pendingMetadata: SyncMetadata?

    /// Applies the commits that wait, in the order they came.
    mutating func applyPending() {
      for save in pending { applied.apply(save) }
      pending = []
      if let metadata = pendingMetadata { applied.metadata = metadata }
      pendingMetadata = nil
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
    applied { $0 }
  }

  /// Every object of `type`, every commit applied.
  package func objects<Object: ModelObject>(_ type: Object.Type) -> [UUID: Object] {
    applied { $0.tables.rows(of: type) }
  }

  /// The object of `type` with `id`, every commit applied.
  package func object<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object? {
    applied { $0.tables.object(type, id: id) }
  }

  /// The last `limit` objects of `type` placed under `parent`, before `before` when it is given,
  /// found through the index of the entity's parent relationship.
  package func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object?
  ) -> [Object] {
    guard limit > 0 else { return [] }
    let candidates = applied { state -> [Object] in
      let tables = state.tables
      guard let relationship = Object.schema.parent else {
        return Array(tables.rows(of: type).values)
      }
      return tables.sources(type, referringTo: parent, via: relationship.name).compactMap {
        tables.object(type, id: $0)
      }
    }
    return lastPlaced(candidates, under: parent, limit: limit, before: before)
  }

  /// What `read` finds in the state, every commit applied.
  private func applied<Value>(_ read: (StoredState) -> Value) -> Value {
    state.withLock { state in
      state.applyPending()
      return read(state.applied)
    }
  }

  /// Keeps `save`, to apply when the state is read or when ``pendingLimit`` commits wait.
  package func commit(_ save: StoreSave) {
    state.withLock { state in
      if let metadata = save.metadata {
        state.pendingMetadata = metadata
        state.pending.append(StoreSave(changes: save.changes, changeLog: save.changeLog))
      } else {
        state.pending.append(save)
      }
      if state.pending.count >= Self.pendingLimit { state.applyPending() }
    }
  }
}
