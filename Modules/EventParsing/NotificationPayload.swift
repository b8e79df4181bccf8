import Foundation
import JSON
import ParsingCore

/// One entry of the notification stream: its id and the events it carries.
///
/// ```json
/// {"id": UUID, "payload": [<event>, …]}
/// ```
///
/// Clients remember the last id they saw and ask for `GET /notifications?since=<id>`. Pages are
/// `{"notifications": [...], "has_more": Bool}`: `Page<NotificationPayload>.parse(data, listKey:
/// NotificationPayload.pageKey)`.
public struct NotificationPayload: PayloadConvertible, Hashable {
  /// The notification's id, the cursor for the next fetch.
  public var id: UUID
  /// The events, in the order they happened.
  public var events: [EventPayload]

  /// The list key of a page of notifications.
  public static let pageKey = "notifications"

  /// Creates a notification.
  public init(id: UUID, events: [EventPayload]) {
    self.id = id
    self.events = events
  }

  /// Reads the id and every event, recording each bad field with its event's index.
  public static func read(from reader: inout ObjectReader) -> NotificationPayload? {
    let id = reader.uuid("id")
    let events = reader.payloads("payload", EventPayload.self)
    guard let id, let events else { return nil }
    return NotificationPayload(id: id, events: events)
  }

  /// The notification as the backend writes it.
  public var jsonValue: JSONValue {
    ["id": id.jsonValue, "payload": .array(events.map(\.jsonValue))]
  }
}
