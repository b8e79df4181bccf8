import Foundation

/// A context's unsaved edits, by entity: an object for an insert or an update, `nil` for a
/// deletion.
struct PendingEdits: Sendable {
  var users: [UUID: User?] = [:]
  var connections: [UUID: Connection?] = [:]
  var conversations: [UUID: Conversation?] = [:]
  var messages: [UUID: Message?] = [:]

  var isEmpty: Bool {
    users.isEmpty && connections.isEmpty && conversations.isEmpty && messages.isEmpty
  }
}
