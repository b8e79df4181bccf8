import Seams

/// A store with its two contexts: the UI context on the main actor and the sync context on its
/// own actor, each merging the other's saves.
///
/// Every merge hop runs as a job of the stack's work tracker, so `.settles` tests wait for the
/// stack to settle.
public final class ModelStack: Sendable {
  /// The user interface's context.
  public let ui: UIContext
  /// The synchronisation context.
  public let sync: SyncContext
  /// The store both contexts save to.
  package let store: any ModelStore
  /// The tracker every merge is enrolled in.
  package let tracker: WorkTracker
  /// The entities the stack's contexts know.
  package let entities: EntityRegistry

  /// Opens a stack on `store`, loading what it holds into both contexts; the public way in is
  /// the initializer for a concrete store, such as `SQLiteStore`'s.
  ///
  /// - Parameters:
  ///   - store: Where saved state lives and what the stack loads at start.
  ///   - entities: The entities the contexts know; Courier's four by default.
  ///   - uuids: Where locally created objects get their ids; the task's current source by default.
  ///   - tracker: Where merges are enrolled; the task's current tracker by default.
  ///   - syncExecution: Where the sync context runs: on its own executor (the default), or on
  ///     the main actor's, in one serial order with the UI context (for model-based tests and
  ///     simulations).
  ///   - pagedObjectLimit: How many messages each context holds before it lets go of those it
  ///     does not need; a test that wants every read to go to the store passes zero.
  /// - Throws: What the store throws while loading.
  package convenience init(
    store: any ModelStore, entities: EntityRegistry = .standard, uuids: UUIDSource = .current,
    tracker: WorkTracker = .current, syncExecution: ActorExecution = .own,
    pagedObjectLimit: Int = ModelContext.defaultPagedObjectLimit
  ) throws {
    self.init(
      store: store, state: try store.loadForOpening(), entities: entities, uuids: uuids,
      tracker: tracker, syncExecution: syncExecution, pagedObjectLimit: pagedObjectLimit)
  }

  private init(
    store: any ModelStore, state: StoredState, entities: EntityRegistry, uuids: UUIDSource,
    tracker: WorkTracker, syncExecution: ActorExecution,
    pagedObjectLimit: Int = ModelContext.defaultPagedObjectLimit
  ) {
    let coordinator = StoreCoordinator(
      store: store, entities: entities, changeLog: state.changeLog)
    let uiBroadcaster = ChangeBroadcaster()
    let ui = UIContext(broadcaster: uiBroadcaster) {
      ModelContext(
        role: .ui, entities: entities, coordinator: coordinator, state: state, uuids: uuids,
        broadcaster: uiBroadcaster, pagedObjectLimit: pagedObjectLimit)
    }
    let sync = SyncContext(
      context: ModelContext(
        role: .sync, entities: entities, coordinator: coordinator, state: state, uuids: uuids,
        pagedObjectLimit: pagedObjectLimit),
      execution: syncExecution)
    coordinator.setDelivery(for: .ui) { [weak ui] in
      Self.onMainActor(tracker, "merge a sync save into the UI context") { ui?.mergeIncoming() }
    }
    let weakSync = WeakSyncContext(sync)
    coordinator.setDelivery(for: .sync) {
      switch syncExecution {
      case .own:
        tracker.run("merge a UI save into the sync context") {
          await weakSync.context?.mergeIncoming()
        }
      case .mainActor:
        // Started on the main actor, the job reaches the sync context without a thread switch.
        Self.onMainActor(tracker, "merge a UI save into the sync context") {
          weakSync.context?.mergeIncomingOnMainActor()
        }
      }
    }
    self.ui = ui
    self.sync = sync
    self.store = store
    self.tracker = tracker
    self.entities = entities
  }

  /// Runs `merge` on the main actor as a job of `tracker` that has begun only once the main actor
  /// runs it: a busy main actor holds it up, which a wait for the tracker must not take for stuck.
  private static func onMainActor(
    _ tracker: WorkTracker, _ label: String, fileID: String = #fileID, line: Int = #line,
    _ merge: @escaping @MainActor @Sendable () -> Void
  ) {
    let token = tracker.enter(label, fileID: fileID, line: line, hasStarted: false)
    Task { @MainActor in
      token.markStarted()
      defer { token.leave() }
      merge()
    }
  }

  /// A fresh stack on an in-memory store holding `objects` as already synchronised: what each
  /// test should start from.
  ///
  /// - Parameters:
  ///   - objects: What the store holds at start, with no local changes; nothing by default.
  ///   - uuids: Where locally created objects get their ids; the task's current source by default.
  ///   - tracker: Where merges are enrolled; the task's current tracker by default.
  ///   - syncExecution: Where the sync context runs; on its own executor by default.
  public static func inMemory(
    _ objects: [any ModelObject] = [], uuids: UUIDSource = .current,
    tracker: WorkTracker = .current, syncExecution: ActorExecution = .own
  ) -> ModelStack {
    inMemory(Tables(objects), uuids: uuids, tracker: tracker, syncExecution: syncExecution)
  }

  /// A fresh stack on an in-memory store holding `tables`, knowing `entities`.
  package static func inMemory(
    _ tables: Tables, entities: EntityRegistry = .standard, uuids: UUIDSource = .current,
    tracker: WorkTracker = .current, syncExecution: ActorExecution = .own
  ) -> ModelStack {
    ModelStack(
      store: InMemoryStore(tables), state: StoredState(tables: tables), entities: entities,
      uuids: uuids, tracker: tracker, syncExecution: syncExecution)
  }
}

/// The sync context, held weakly by the coordinator's delivery so the stack is not kept alive by
/// its own saves.
private final class WeakSyncContext: Sendable {
  weak let context: SyncContext?

  init(_ context: SyncContext) {
    self.context = context
  }
}
