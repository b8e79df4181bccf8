import Foundation
import Models

/// The values one key of one object took in a context, in order, recorded from the moment the
/// history was made: what a screen showing that object would have shown.
///
/// ```swift
/// let states = ui.history(of: Message.self, id: message.id, \.deliveryState)
/// // … the message is sent …
/// #expect(await states.values() == [.pending, .sent])
/// ```
///
/// The history reads the object after each change the context announces and keeps a value when
/// it differs from the last one kept; `nil` stands for an object that is not there. It reads the
/// context itself rather than the change, so its values are always ones the context held, in
/// the order it held them.
@MainActor
public final class History<Value: Equatable & Sendable> {
  private let read: () -> Value?
  private var recorded: [Value?]

  init(changes: AsyncStream<ContextChange>, read: @escaping () -> Value?) {
    self.read = read
    self.recorded = [read()]
    // The task holds the object weakly and ends at the first change after the object is gone.
    Task { @MainActor [weak self] in
      for await _ in changes {
        guard let self else { return }
        self.sample()
      }
    }
  }

  /// Every value recorded so far, oldest first, the current one last.
  ///
  /// It lets announced changes be read first, so a value the context holds now is never missing.
  public func values() async -> [Value?] {
    await Task.yield()
    sample()
    return recorded
  }

  private func sample() {
    let value = read()
    if recorded.last != value { recorded.append(value) }
  }
}

extension ModelContext {
  /// A history of the values `key` of the object `id` takes in this context from now on; for
  /// the UI context, which lives on the main actor.
  @MainActor
  public func history<Object: ModelObject, Value: Equatable & Sendable>(
    of type: Object.Type, id: UUID, _ key: KeyPath<Object, Value>
  ) -> History<Value> {
    History(changes: changes()) { [weak self] in
      self?.object(type, id: id)?[keyPath: key]
    }
  }
}
