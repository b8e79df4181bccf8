import Models
import Seams

extension ModelStack {
  /// Opens a stack on the SQLite `store`, loading what it holds into both contexts.
  ///
  /// ```swift
  /// let stack = try ModelStack(store: try SQLiteStore(path: "/path/to/courier.sqlite"))
  /// ```
  ///
  /// - Parameters:
  ///   - store: The file saved state lives in.
  ///   - uuids: Where locally created objects get their ids; the task's current source by default.
  ///   - tracker: Where merges are enrolled; the task's current tracker by default.
  ///   - syncExecution: Where the sync context runs; on its own executor by default.
  /// - Throws: ``SQLiteStoreError`` when a stored row cannot be read.
  public convenience init(
    store: SQLiteStore, uuids: UUIDSource = .current, tracker: WorkTracker = .current,
    syncExecution: ActorExecution = .own
  ) throws {
    try self.init(
      store: store as any ModelStore, entities: store.entities, uuids: uuids, tracker: tracker,
      syncExecution: syncExecution)
  }
}
