import Foundation
import Models

/// What a conversation's screen shows: its messages, oldest first, each with its delivery state.
///
/// It reads the UI context when it is made and again after each change the context announces, as
/// a view model of an app does.
@MainActor
public final class ConversationScreen {
  /// One message as the screen shows it.
  public struct Row: Equatable, Sendable {
    /// The message's text.
    public let text: String
    /// Whether the message is pending, sent or failed.
    public let state: Message.DeliveryState

    /// Creates a row.
    public init(text: String, state: Message.DeliveryState) {
      self.text = text
      self.state = state
    }
  }

  /// The rows, oldest first.
  public private(set) var rows: [Row] = []
  private let context: ModelContext
  private let conversationID: UUID

  /// Shows the conversation `conversationID` of `context`, the UI context.
  public init(context: ModelContext, conversationID: UUID) {
    self.context = context
    self.conversationID = conversationID
    refresh()
    let changes = context.changes()
    // The task holds the object weakly and ends at the first change after the object is gone.
    Task { [weak self] in
      for await _ in changes {
        guard let self else { return }
        self.refresh()
      }
    }
  }

  private func refresh() {
    rows = context.objects(Message.self)
      .filter { $0.conversationID == conversationID }
      .sorted { ($0.localTime, $0.nonce.uuidString) < ($1.localTime, $1.nonce.uuidString) }
      .map { Row(text: $0.text, state: $0.deliveryState) }
  }
}
