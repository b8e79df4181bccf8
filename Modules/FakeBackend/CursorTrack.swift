import EventParsing
import Foundation

/// Where a client's notification cursor has stood in its user's stream, and the rule it keeps:
/// the cursor only moves forward.
///
/// A cursor that moves back makes the client read old news again, over newer values it showed.
/// A cursor that names a notification the backend no longer keeps says nothing, and is passed
/// over. The furthest notification is remembered by id and placed in the stream as it is at each
/// move, so a backend that forgets its oldest news does not make a cursor look as if it went back.
package struct CursorTrack: Sendable, Equatable {
  /// The furthest notification the cursor named; `nil` before any.
  package private(set) var furthest: UUID?

  /// Creates a track that has seen no cursor yet.
  package init() {}

  /// Records that the cursor names `id` in `stream`; says how it moved back, if it did.
  package mutating func move(to id: UUID, in stream: [NotificationPayload]) -> String? {
    guard let now = stream.firstIndex(where: { $0.id == id }) else { return nil }
    // A furthest notification the backend forgot was older than everything it keeps.
    guard let furthest, let then = stream.firstIndex(where: { $0.id == furthest }) else {
      self.furthest = id
      return nil
    }
    guard now < then else {
      self.furthest = id
      return nil
    }
    return "the notification cursor moved back from position \(then) to \(now)"
  }
}
