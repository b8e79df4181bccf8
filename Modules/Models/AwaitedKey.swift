import Foundation

/// One key that a change of this device set and the backend answered, whose news may still be
/// read after the answer: news of it older than the answer's version leave it as the answer set it.
package enum AwaitedKey: Sendable, Hashable, Codable {
  /// The self user's name.
  case selfName
  /// The self user's accent.
  case accent
  /// The self user's handle.
  case handle
  /// The name of a group.
  case groupName(UUID)
  /// Whether `user` is a member of group `conversation`.
  case member(UUID, conversation: UUID)
  /// The status of the self user's connection with a user (the connection's id).
  case connectionStatus(UUID)
  /// A message this device deleted: news of its posting are older than the deletion.
  case deletedMessage(UUID)
  /// A group this device left: news of its making are older than the leaving.
  case leftGroup(UUID)
  /// A group this device created: lists read before the answer leave it out.
  case createdGroup(UUID)

  /// The group whose name or members the key is, if any.
  var group: UUID? {
    switch self {
    case .groupName(let group), .member(_, let group), .createdGroup(let group): group
    default: nil
    }
  }
}

/// The value an answer set a group's key to.
package enum AnsweredValue: Sendable, Hashable, Codable {
  /// The group's name.
  case name(String?)
  /// Whether the user the key names is a member.
  case member(Bool)
}

/// A key awaiting its news with its latest answer's version and value, as the store keeps it.
struct StoredAwaitedAnswer: Codable {
  /// The key the answer set.
  var key: AwaitedKey
  /// The server's version the answer said; absent for a deletion that waits for its own news.
  var version: Int?
  /// The value the answer set, if it is kept.
  var value: AnsweredValue?
}
