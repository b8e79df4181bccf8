import Foundation

/// A change of a group's members that this device made and the backend answered before the
/// news of it were read, so that older news of those members do not move them back.
package struct AnsweredMemberChange: Sendable, Hashable, Codable {
  /// The order in which the answers came, counted by ``SyncMetadata/answersRecorded``.
  package var number: Int
  /// The group whose members changed.
  package var conversation: UUID
  /// Whether the users joined the group, or left it.
  package var joined: Bool
  /// The users the backend said it added or removed, as the news of the change will name them.
  package var users: Set<UUID>
  /// Whether news of any user moving ``users`` are the news awaited, not only the self user's.
  ///
  /// Set when the backend answered that it held them so already, which an earlier try of this
  /// device (whose answer was lost) or another user may have done.
  package var fromAnyone: Bool

  /// Creates the record of an answered member change.
  package init(
    number: Int, conversation: UUID, joined: Bool, users: Set<UUID>, fromAnyone: Bool = false
  ) {
    self.number = number
    self.conversation = conversation
    self.joined = joined
    self.users = users
    self.fromAnyone = fromAnyone
  }

  private enum CodingKeys: String, CodingKey {
    case number
    case conversation
    case joined
    case users
    case fromAnyone
  }

  /// Reads the record; one written before ``fromAnyone`` existed awaits the self user's news.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    number = try container.decode(Int.self, forKey: .number)
    conversation = try container.decode(UUID.self, forKey: .conversation)
    joined = try container.decode(Bool.self, forKey: .joined)
    users = Set(try container.decode([UUID].self, forKey: .users))
    fromAnyone = try container.decodeIfPresent(Bool.self, forKey: .fromAnyone) ?? false
  }

  /// Writes the record, its users in id order so that equal records write equal bytes, and
  /// ``fromAnyone`` only when set.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(number, forKey: .number)
    try container.encode(conversation, forKey: .conversation)
    try container.encode(joined, forKey: .joined)
    try container.encode(users.sorted(), forKey: .users)
    if fromAnyone { try container.encode(true, forKey: .fromAnyone) }
  }
}
