import Seams

/// Collects values that code under test reports from any task or thread, in the order they
/// arrive, for the test to read afterwards.
///
/// ```swift
/// let events = Recorder<SyncEngineEvent>()
/// let engine = SyncEngine(stack: stack, transport: fake.transport, onEvent: events.record)
/// // …
/// #expect(events.elements.contains(.connectivity(online: false)))
/// ```
public final class Recorder<Element: Sendable>: Sendable {
  private let storage = Locked<[Element]>([])

  /// Creates an empty recorder.
  public init() {}

  /// Appends `element`.
  public func append(_ element: Element) {
    storage.withLock { $0.append(element) }
  }

  /// A function that appends what it is called with: pass it where a callback is expected.
  public var record: @Sendable (Element) -> Void {
    { [self] element in append(element) }
  }

  /// Everything recorded so far, oldest first.
  public var elements: [Element] { storage.withLock { $0 } }

  /// How many elements were recorded.
  public var count: Int { storage.withLock { $0.count } }

  /// Forgets everything recorded so far.
  public func removeAll() {
    storage.withLock { $0.removeAll() }
  }
}
