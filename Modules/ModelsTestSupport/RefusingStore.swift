import Models
import Seams

/// An in-memory store that refuses saves when told to, as a full disk or a database another
/// process holds would: for tests of what an app or the sync layer does when a save fails.
///
/// ```swift
/// let store = RefusingStore()
/// let stack = try ModelStack(store: store)
/// store.refuseNextSaves(1)
/// #expect(throws: SaveError.self) { try stack.ui.context.save() }
/// ```
public final class RefusingStore: WrappingStore, Sendable {
  /// The error a refused save throws.
  public struct Refusal: Error, Equatable, CustomStringConvertible {
    /// Says the store refused.
    public var description: String { "the store refused the save (a test's RefusingStore)" }
  }

  private let base: InMemoryStore
  /// How many saves to let through before refusing, and how many to refuse then.
  private let plan = Locked((skip: 0, refuse: 0))

  /// Creates a store holding `objects`, as already synchronised, that takes every save until
  /// told otherwise.
  public init(_ objects: [any ModelObject] = []) {
    base = InMemoryStore(Tables(objects))
  }

  /// Makes the store refuse `count` saves, after letting the next `skipped` through.
  public func refuseNextSaves(_ count: Int, after skipped: Int = 0) {
    plan.withLock { $0 = (skip: max(skipped, 0), refuse: max(count, 0)) }
  }

  /// The store every read goes to.
  package var wrapped: any ModelStore { base }

  /// Everything the store holds.
  package func load() -> StoredState { base.load() }

  /// Writes `save`, unless the store was told to refuse it.
  ///
  /// - Throws: ``Refusal`` for a refused save, which then writes nothing.
  package func commit(_ save: StoreSave) throws {
    let refuses = plan.withLock { plan in
      if plan.skip > 0 {
        plan.skip -= 1
        return false
      }
      guard plan.refuse > 0 else { return false }
      plan.refuse -= 1
      return true
    }
    if refuses { throw Refusal() }
    base.commit(save)
  }
}

extension ModelStack {
  /// Opens a stack on the refusing `store`, loading what it holds into both contexts.
  ///
  /// - Parameters:
  ///   - store: The store that refuses saves when told to.
  ///   - uuids: Where locally created objects get their ids; the task's current source by default.
  ///   - tracker: Where merges are enrolled; the task's current tracker by default.
  ///   - syncExecution: Where the sync context runs; on its own executor by default.
  /// - Throws: Nothing in practice: an in-memory store always loads.
  public convenience init(
    store: RefusingStore, uuids: UUIDSource = .current, tracker: WorkTracker = .current,
    syncExecution: ActorExecution = .own
  ) throws {
    try self.init(
      store: store as any ModelStore, uuids: uuids, tracker: tracker,
      syncExecution: syncExecution)
  }
}
