import Seams

/// Something that changed a context's objects: its own save, or a merge of the other context's.
public struct ContextChange: Sendable, Equatable, CustomStringConvertible {
  /// How the change reached the context.
  public enum Kind: Sendable, Hashable {
    /// The context saved its own edits.
    case saved
    /// The context merged a save of the other context.
    case merged
  }

  /// The context the change happened in.
  public let context: ContextRole
  /// Whether the context saved or merged.
  public let kind: Kind
  /// The change set saved or merged.
  public let changes: ChangeSet

  /// Reads as `sync merged ui save: User +0 ~1 -0`.
  public var description: String {
    "\(context) \(kind == .saved ? "saved" : "merged") \(changes)"
  }
}

/// Hands each change of a context to every current subscriber, without a hop.
final class ChangeBroadcaster: Sendable {
  private struct State {
    var nextID = 0
    var subscribers: [Int: AsyncStream<ContextChange>.Continuation] = [:]
    var observers: [@Sendable (ContextChange) -> Void] = []
  }

  private let state = Locked(State())

  /// Ends every subscriber's stream: the context is gone, so no change will come.
  deinit { finish() }

  func subscribe() -> AsyncStream<ContextChange> {
    let (stream, continuation) = AsyncStream<ContextChange>.makeStream()
    let id = state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.subscribers[id] = continuation
      return id
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }
    return stream
  }

  /// Calls `observer` synchronously with every later change, on the context's isolation.
  func observe(_ observer: @escaping @Sendable (ContextChange) -> Void) {
    state.withLock { $0.observers.append(observer) }
  }

  func publish(_ change: ContextChange) {
    let (subscribers, observers) = state.withLock { (Array($0.subscribers.values), $0.observers) }
    for subscriber in subscribers { subscriber.yield(change) }
    for observer in observers { observer(change) }
  }

  func finish() {
    let subscribers = state.withLock { state in
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.finish() }
  }
}
