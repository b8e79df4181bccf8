import Seams

/// A store with its two contexts: the UI context on the main actor and the sync context on its
/// own actor, each merging the other's saves.
///
/// Every merge hop runs as a job of the stack's work tracker, so `.quiescent` tests wait for the
/// stack to settle.
public final class ModelStack: Sendable {
  /// The user interface's context.
  public let ui: UIContext
  /// The synchronisation context.
  public let sync: SyncContext
  /// The store both contexts save to.
  public let store: any ModelStore
  /// The tracker every merge is enrolled in.
  public let tracker: WorkTracker
  /// The entities the stack's contexts know.
  public let entities: EntityRegistry

  /// Opens a stack on `store`, loading what it holds into both contexts.
  ///
  /// - Parameters:
  ///   - entities: The entities the contexts know; Courier's four by default.
  ///   - uuids: Where locally created objects get their ids; the task's current source by default.
  ///   - tracker: Where merges are enrolled; the task's current tracker by default.
  /// - Throws: What the store throws while loading.
  public convenience init(
    store: any ModelStore, entities: EntityRegistry = .standard, uuids: UUIDSource = .current,
    tracker: WorkTracker = .current
  ) throws {
    self.init(
      store: store, tables: try store.load(), entities: entities, uuids: uuids, tracker: tracker)
  }

  private init(
    store: any ModelStore, tables: Tables, entities: EntityRegistry, uuids: UUIDSource,
    tracker: WorkTracker
  ) {
    let coordinator = StoreCoordinator(store: store)
    let uiBroadcaster = ChangeBroadcaster()
    let ui = UIContext(broadcaster: uiBroadcaster) {
      ModelContext(
        role: .ui, entities: entities, coordinator: coordinator, tables: tables, uuids: uuids,
        broadcaster: uiBroadcaster)
    }
    let sync = SyncContext(
      context: ModelContext(
        role: .sync, entities: entities, coordinator: coordinator, tables: tables, uuids: uuids))
    coordinator.setDelivery(for: .ui) { [weak ui] in
      tracker.run("merge a sync save into the UI context") { @MainActor in ui?.mergeIncoming() }
    }
    coordinator.setDelivery(for: .sync) { [weak sync] in
      tracker.run("merge a UI save into the sync context") { await sync?.mergeIncoming() }
    }
    self.ui = ui
    self.sync = sync
    self.store = store
    self.tracker = tracker
    self.entities = entities
  }

  /// A fresh stack on an empty in-memory store: what each test should start from.
  public static func inMemory(
    _ tables: Tables = Tables(), entities: EntityRegistry = .standard, uuids: UUIDSource = .current,
    tracker: WorkTracker = .current
  ) -> ModelStack {
    ModelStack(
      store: InMemoryStore(tables), tables: tables, entities: entities, uuids: uuids,
      tracker: tracker)
  }
}
