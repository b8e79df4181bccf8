import Seams

/// The synchronisation context of a stack, isolated to its own actor: the sync layer reads local
/// changes and applies server values here.
public actor SyncContext {
  private let context: ModelContext
  private let broadcaster: ChangeBroadcaster
  private let executor: ChosenExecutor

  init(context: sending ModelContext, execution: ActorExecution) {
    self.broadcaster = context.broadcaster
    self.context = context
    self.executor = execution.makeExecutor(label: "courier.sync-context")
  }

  /// The executor the context runs on: its own, or the main actor's (`ActorExecution`).
  public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

  /// Runs `body` with the context on this actor, the way every use of it goes.
  ///
  /// ```swift
  /// try await stack.sync.perform { context in
  ///   context.applyRemote(user)
  ///   try context.save()
  /// }
  /// ```
  ///
  /// The context first merges what the UI context saved and it has not merged yet, so the body
  /// always starts from every save made before it.
  public func perform<Result: Sendable, Failure: Error>(
    _ body: @Sendable (ModelContext) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    context.mergeIncoming()
    return try body(context)
  }

  /// Every change of this context from now on: its saves and its merges; the stream ends once
  /// the stack is gone.
  public nonisolated func changes() -> AsyncStream<ContextChange> {
    broadcaster.subscribe()
  }

  /// Calls `observer` with every later save and merge of this context, synchronously, while the
  /// change is being made: a way to start work (enrolled in a work tracker) without a task that
  /// listens forever.
  package nonisolated func observeChanges(_ observer: @escaping @Sendable (ContextChange) -> Void) {
    broadcaster.observe(observer)
  }

  func mergeIncoming() {
    context.mergeIncoming()
  }

  /// Merges without a hop, for a context that runs on the main actor's executor.
  @MainActor
  func mergeIncomingOnMainActor() {
    assumeIsolated { $0.mergeIncoming() }
  }
}

/// The user interface's context of a stack, isolated to the main actor.
@MainActor
public final class UIContext {
  private let makeContext: @Sendable () -> ModelContext
  private let broadcaster: ChangeBroadcaster
  private var storage: ModelContext?

  nonisolated init(
    broadcaster: ChangeBroadcaster, makeContext: @escaping @Sendable () -> ModelContext
  ) {
    self.broadcaster = broadcaster
    self.makeContext = makeContext
  }

  /// The context itself; read and edit it from the main actor.
  ///
  /// It is made on first use from the state the stack opened with, and merges every save the
  /// sync context made since then before it is handed out.
  public var context: ModelContext {
    if let storage { return storage }
    let context = makeContext()
    storage = context
    context.mergeIncoming()
    return context
  }

  /// Every change of this context from now on: its saves and its merges; the stream ends once
  /// the stack is gone.
  public nonisolated func changes() -> AsyncStream<ContextChange> {
    broadcaster.subscribe()
  }

  func mergeIncoming() {
    context.mergeIncoming()
  }
}

/// A context whose changes can be observed from any isolation.
public protocol ContextChangeSource: Sendable {
  /// Which context this is.
  var role: ContextRole { get }
  /// Every change of the context from now on: its saves and its merges; the stream ends once
  /// the context is gone.
  func changes() -> AsyncStream<ContextChange>
}

extension SyncContext: ContextChangeSource {
  /// Always ``ContextRole/sync``.
  public nonisolated var role: ContextRole { .sync }
}

extension UIContext: ContextChangeSource {
  /// Always ``ContextRole/ui``.
  public nonisolated var role: ContextRole { .ui }
}
