import Foundation

/// A change of a group's members that this device made and the backend answered before the
/// news of it were read, so that older news of those members do not move them back.
public struct AnsweredMemberChange: Sendable, Hashable, Codable {
  /// The order in which the answers came, counted by ``SyncMetadata/answersRecorded``.
  public var number: Int
  /// The group whose members changed.
  public var conversation: UUID
  /// Whether the users joined the group, or left it.
  public var joined: Bool
  /// The users the backend said it added or removed, as the news of the change will name them.
  public var users: Set<UUID>

  /// Creates the record of an answered member change.
  public init(number: Int, conversation: UUID, joined: Bool, users: Set<UUID>) {
    self.number = number
    self.conversation = conversation
    self.joined = joined
    self.users = users
  }

  private enum CodingKeys: String, CodingKey {
    case number
    case conversation
    case joined
    case users
  }

  /// Reads the record.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    number = try container.decode(Int.self, forKey: .number)
    conversation = try container.decode(UUID.self, forKey: .conversation)
    joined = try container.decode(Bool.self, forKey: .joined)
    users = Set(try container.decode([UUID].self, forKey: .users))
  }

  /// Writes the record, its users in id order so that equal records write equal bytes.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(number, forKey: .number)
    try container.encode(conversation, forKey: .conversation)
    try container.encode(joined, forKey: .joined)
    try container.encode(users.sorted(), forKey: .users)
  }
}
