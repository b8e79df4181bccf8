import Foundation
import Models

/// A local change that news from the backend left with nowhere to go, dropped here with the
/// object it changed: the backend removed the self user from the conversation it belongs to.
///
/// An app shows it as it would a refused change, so that nothing the user wrote vanishes
/// without a word. A change whose request was out when the news came may still have reached
/// the backend before the removal.
public struct DroppedChange: Sendable, Hashable, CustomStringConvertible {
  /// The change, as the sync queue listed it.
  public let item: SyncQueueSnapshot.Item
  /// The conversation the self user was removed from, which took the change with it.
  public let conversation: UUID

  /// Creates the record of `item`, dropped with `conversation`.
  public init(item: SyncQueueSnapshot.Item, conversation: UUID) {
    self.item = item
    self.conversation = conversation
  }

  /// Reads as `insert Message 3f2a…, dropped: the self user was removed from conversation 9c1e…`.
  public var description: String {
    "\(item), dropped: the self user was removed from conversation \(conversation.uuidString.lowercased())"
  }
}
