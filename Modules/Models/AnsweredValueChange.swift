import Foundation

/// A new value of a key that this device sent and the backend answered before the news of it
/// were read, so that older news of that key do not put an older value back.
package struct AnsweredValueChange: Sendable, Hashable, Codable {
  /// The order in which the answers came, counted by ``SyncMetadata/answersRecorded``.
  package var number: Int
  /// The key and the value the backend took.
  package var value: AnsweredValue

  /// Creates the record of an answered change of one key.
  package init(number: Int, value: AnsweredValue) {
    self.number = number
    self.value = value
  }
}

/// A value the backend took for one key of the self user, of a group or of a connection, as its
/// news will tell it.
package enum AnsweredValue: Sendable, Hashable, Codable {
  /// The self user's name.
  case selfName(String)
  /// The self user's accent.
  case accent(Int)
  /// The self user's handle, set.
  case handle(String)
  /// The name of group `conversation`.
  case groupName(conversation: UUID, name: String)
  /// The status of the self user's connection `connection` (named by the other user's id).
  case connectionStatus(connection: UUID, status: Connection.Status)

  /// Which key of which object it is a value of.
  package var key: AnsweredKey {
    switch self {
    case .selfName: .selfName
    case .accent: .accent
    case .handle: .handle
    case .groupName(let conversation, _): .groupName(conversation)
    case .connectionStatus(let connection, _): .connectionStatus(connection)
    }
  }
}

/// One key of the self user, of a group or of a connection whose answered value waits for its
/// news.
package enum AnsweredKey: Sendable, Hashable {
  /// The self user's name.
  case selfName
  /// The self user's accent.
  case accent
  /// The self user's handle.
  case handle
  /// The name of a group.
  case groupName(UUID)
  /// The status of a connection of the self user.
  case connectionStatus(UUID)
}
