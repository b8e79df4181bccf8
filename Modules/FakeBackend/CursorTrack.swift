import EventParsing
import Foundation

/// Where a client's notification cursor has stood in its user's stream, and the rule it keeps:
/// the cursor only moves forward.
///
/// A cursor that moves back makes the client read old news again, over newer values it showed.
/// A cursor that names a notification the backend no longer keeps says nothing, and is passed
/// over.
package struct CursorTrack: Sendable, Equatable {
  /// The position in the stream of the furthest notification the cursor named; -1 before any.
  package private(set) var position = -1

  /// Creates a track that has seen no cursor yet.
  package init() {}

  /// Records that the cursor names `id` in `stream`; says how it moved back, if it did.
  package mutating func move(to id: UUID, in stream: [NotificationPayload]) -> String? {
    guard let now = stream.firstIndex(where: { $0.id == id }) else { return nil }
    defer { position = max(position, now) }
    guard now < position else { return nil }
    return "the notification cursor moved back from position \(position) to \(now)"
  }
}
