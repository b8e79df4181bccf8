import Seams
import Testing

/// Collects values that code under test reports from any task or thread, in the order they
/// arrive, for the test to read afterwards.
///
/// ```swift
/// let events = Recorder<SyncEngineEvent>()
/// let engine = SyncEngine(stack: stack, transport: fake.transport, onEvent: events.record)
/// // …
/// #expect(events.elements.contains(.connectivity(online: false)))
/// ```
///
/// A test can also await what comes next, one element at a time:
///
/// ```swift
/// let first = await events.next()
/// ```
public final class Recorder<Element: Sendable>: Sendable {
  private struct State {
    var elements: [Element] = []
    /// How many elements ``next(within:sourceLocation:)`` has handed out.
    var read = 0
  }

  private let storage = Locked(State())
  private let updates: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  /// Creates an empty recorder.
  public init() {
    (updates, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// Appends `element`.
  public func append(_ element: Element) {
    storage.withLock { $0.elements.append(element) }
    continuation.yield()
  }

  /// The oldest element that `next` has not handed out yet, waiting up to `timeout` for one to
  /// be recorded; `nil`, with an issue recorded, when none comes.
  ///
  /// One task awaits a recorder at a time.
  public func next(
    within timeout: Duration = TimeoutScale.scaled(.seconds(5)),
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Element? {
    if let element = takeNext() { return element }
    let element = await firstResult(within: timeout) { [self] () async -> Element? in
      for await _ in updates {
        if let element = takeNext() { return element }
      }
      return nil
    }
    if element == nil {
      Issue.record(
        "Recorder: no new element within \(timeout); \(count) recorded, all of them read",
        sourceLocation: sourceLocation)
    }
    return element
  }

  private func takeNext() -> Element? {
    storage.withLock { state in
      guard state.read < state.elements.count else { return nil }
      defer { state.read += 1 }
      return state.elements[state.read]
    }
  }

  /// A function that appends what it is called with: pass it where a callback is expected.
  public var record: @Sendable (Element) -> Void {
    { [self] element in append(element) }
  }

  /// Everything recorded so far, oldest first.
  public var elements: [Element] { storage.withLock { $0.elements } }

  /// How many elements were recorded.
  public var count: Int { storage.withLock { $0.elements.count } }

  /// Forgets everything recorded so far.
  public func removeAll() {
    storage.withLock { $0 = State() }
  }
}
