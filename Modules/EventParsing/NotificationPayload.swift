import Foundation
import JSON
import ParsingCore

/// One entry of the notification stream: its id and the events it carries.
///
/// ```json
/// {"id": UUID, "version": Int, "payload": [<event>, …]}
/// ```
///
/// `version` is the `ServerVersion` of the change the notification reports: a client compares
/// it with the version an answer carries to tell which change the server applied last. A
/// backend that does not order its changes leaves it out.
///
/// Clients remember the last id they saw and ask for `GET /notifications?since=<id>`. Pages are
/// `{"notifications": [...], "has_more": Bool}`: `Page<NotificationPayload>.parse(data, listKey:
/// NotificationPayload.pageKey)`.
public struct NotificationPayload: PayloadConvertible, Hashable {
  /// The notification's id, the cursor for the next fetch.
  public var id: UUID
  /// The events, in the order they happened.
  public var events: [EventPayload]
  /// The server's version of the change reported, if the backend says it.
  public var version: ServerVersion?

  /// The list key of a page of notifications.
  public static let pageKey = "notifications"

  /// Creates a notification.
  public init(id: UUID, version: ServerVersion? = nil, events: [EventPayload]) {
    self.id = id
    self.version = version
    self.events = events
  }

  /// Reads the id and every event, recording each bad field with its event's index.
  public static func read(from reader: inout ObjectReader) -> NotificationPayload? {
    let id = reader.uuid("id")
    let version = reader.optionalVersion("version")
    let events = reader.payloads("payload", EventPayload.self)
    guard let id, let version, let events else { return nil }
    return NotificationPayload(id: id, version: version, events: events)
  }

  /// The notification as the backend writes it.
  public var jsonValue: JSONValue {
    var object: [String: JSONValue] = [
      "id": id.jsonValue, "payload": .array(events.map(\.jsonValue)),
    ]
    if let version { object["version"] = version.jsonValue }
    return .object(object)
  }
}
