import Seams

/// A store with its two contexts living in the caller's isolation: each save is merged into the
/// other context at once, in the same call, so everything happens in one serial order.
///
/// ```swift
/// let stack = InlineModelStack()
/// try stack.ui.update(User.self, id: me.id) { $0.name = "Ada" }
/// try stack.ui.save()                                  // already merged into stack.sync
/// let pending = stack.sync.localChanges(of: User.self)
/// ```
///
/// For model-based tests, simulations and command-line tools: no task, no actor hop, the same
/// interleaving in every run, and independent stacks can run in parallel. It is not `Sendable`;
/// the compiler keeps it, and both contexts, where it was made. An app wants ``ModelStack``.
package final class InlineModelStack {
  /// The user interface's context.
  package let ui: ModelContext
  /// The synchronisation context.
  package let sync: ModelContext
  /// The store both contexts save to.
  package let store: any ModelStore
  /// The entities the contexts know.
  package let entities: EntityRegistry

  /// Opens a stack on `store`, loading what it holds but the messages into both contexts, each
  /// of which holds at most `pagedObjectLimit` messages it does not need after a save or merge.
  ///
  /// - Throws: What the store throws while loading.
  package convenience init(
    store: any ModelStore, entities: EntityRegistry = .standard, uuids: UUIDSource = .current,
    pagedObjectLimit: Int = ModelContext.defaultPagedObjectLimit
  ) throws {
    self.init(
      store: store, state: try store.loadForOpening(), entities: entities, uuids: uuids,
      pagedObjectLimit: pagedObjectLimit)
  }

  /// A stack on a fresh in-memory store holding `tables`.
  package convenience init(
    _ tables: Tables = Tables(), entities: EntityRegistry = .standard, uuids: UUIDSource = .current
  ) {
    self.init(
      store: InMemoryStore(tables), state: StoredState(tables: tables), entities: entities,
      uuids: uuids)
  }

  private init(
    store: any ModelStore, state: StoredState, entities: EntityRegistry, uuids: UUIDSource,
    pagedObjectLimit: Int = ModelContext.defaultPagedObjectLimit
  ) {
    let coordinator = StoreCoordinator(
      store: store, entities: entities, changeLog: state.changeLog)
    let ui = ModelContext(
      role: .ui, entities: entities, coordinator: coordinator, state: state, uuids: uuids,
      pagedObjectLimit: pagedObjectLimit)
    let sync = ModelContext(
      role: .sync, entities: entities, coordinator: coordinator, state: state, uuids: uuids,
      pagedObjectLimit: pagedObjectLimit)
    let contexts = InlineContexts(ui: ui, sync: sync)
    coordinator.setDelivery(for: .ui) { contexts.ui?.mergeIncoming() }
    coordinator.setDelivery(for: .sync) { contexts.sync?.mergeIncoming() }
    self.ui = ui
    self.sync = sync
    self.store = store
    self.entities = entities
  }
}

/// The two contexts of an inline stack, for the coordinator's deliveries.
///
/// Unchecked `Sendable`: a delivery only runs inside a save of the other context, which the
/// non-`Sendable` ``InlineModelStack`` confines to the isolation it was made in, so the contexts
/// are never touched from two places. They are held weakly, so the stack's own saves do not keep
/// it alive.
private final class InlineContexts: @unchecked Sendable {
  weak var ui: ModelContext?
  weak var sync: ModelContext?

  init(ui: ModelContext, sync: ModelContext) {
    self.ui = ui
    self.sync = sync
  }
}
