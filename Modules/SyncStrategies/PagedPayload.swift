import ConnectionParsing
import ConversationParsing
import EventParsing
import Foundation
import JSON
import ParsingCore

/// An element of a paged listing, which the next page is asked for after: a notification, a
/// connection or a conversation.
public protocol PagedPayload: PayloadConvertible {
  /// The key whose id the next page starts after, in the element as the backend writes it.
  static var cursorKey: String { get }
  /// The id the next page starts after, when this element is the last of its page.
  var cursor: UUID { get }
}

extension NotificationPayload: PagedPayload {
  /// Notifications are read on after the last one's id.
  public static var cursorKey: String { "id" }
  /// The notification's id.
  public var cursor: UUID { id }
}

extension ConnectionPayload: PagedPayload {
  /// Connections are read on after the last one's other user.
  public static var cursorKey: String { "to" }
  /// The other user's id.
  public var cursor: UUID { to }
}

extension ConversationPayload: PagedPayload {
  /// Conversations are read on after the last one's id.
  public static var cursorKey: String { "id" }
  /// The conversation's id.
  public var cursor: UUID { id }
}

extension Page where Element: PagedPayload {
  /// Where the page after this one starts: after its last element whose cursor could be read,
  /// whether the rest of it could be read or not; `nil` if no element's could.
  ///
  /// An element that cannot be read now never will be, so the next page starts after it
  /// rather than asking for it again (and for ever, if the whole page is unreadable).
  public var cursor: UUID? {
    guard !failures.isEmpty else { return elements.last?.cursor }
    let unreadable = Dictionary(
      failures.map { ($0.index, $0.raw) }, uniquingKeysWith: { first, _ in first })
    for index in stride(from: elements.count + failures.count - 1, through: 0, by: -1) {
      // Elements keep their order, so the last position that is no failure is the last read.
      guard let raw = unreadable[index] else { return elements.last?.cursor }
      if let id = Self.cursor(of: raw) { return id }
    }
    return nil
  }

  /// The elements that could not be read, with their ids where those could be.
  public var unreadableElements: [UnreadableElement] {
    failures.map {
      UnreadableElement(index: $0.index, id: Self.cursor(of: $0.raw), error: $0.error)
    }
  }

  /// The cursor of an element as it arrived, if it has one that reads as an id.
  private static func cursor(of raw: JSONValue) -> UUID? {
    raw[Element.cursorKey]?.stringValue.flatMap(UUID.init(text:))
  }
}
