import Foundation

/// A new value of a key that this device sent and the backend answered before the news of it
/// were read, so that older news of that key do not put an older value back.
public struct AnsweredValueChange: Sendable, Hashable, Codable {
  /// The order in which the answers came, counted by ``SyncMetadata/answersRecorded``.
  public var number: Int
  /// The key and the value the backend took.
  public var value: AnsweredValue

  /// Creates the record of an answered change of one key.
  public init(number: Int, value: AnsweredValue) {
    self.number = number
    self.value = value
  }
}

/// A value the backend took for one key of the self user or of a group, as its news will tell
/// it.
public enum AnsweredValue: Sendable, Hashable, Codable {
  /// The self user's name.
  case selfName(String)
  /// The self user's accent.
  case accent(Int)
  /// The self user's handle, set.
  case handle(String)
  /// The name of group `conversation`.
  case groupName(conversation: UUID, name: String)

  /// Which key of which object it is a value of.
  public var key: AnsweredKey {
    switch self {
    case .selfName: .selfName
    case .accent: .accent
    case .handle: .handle
    case .groupName(let conversation, _): .groupName(conversation)
    }
  }
}

/// One key of the self user or of a group whose answered value waits for its news.
public enum AnsweredKey: Sendable, Hashable {
  /// The self user's name.
  case selfName
  /// The self user's accent.
  case accent
  /// The self user's handle.
  case handle
  /// The name of a group.
  case groupName(UUID)
}
