import Foundation

/// What the sync layer keeps besides objects and pending changes, saved with the sync context so
/// that it survives a restart.
public struct SyncMetadata: Sendable, Hashable, Codable {
  /// The id of the last notification applied; the next fetch asks for those after it.
  public var lastNotificationID: UUID?
  /// The users whose profiles the sync layer still owes a fetch: named by news and unknown
  /// here, or contacts whose connection the news showed accepted.
  ///
  /// Saved with the cursor that moved past their news, and kept until a fetch of them is
  /// answered, so that neither a failed fetch nor a restart loses them.
  public var usersToFetch: Set<UUID>
  /// The groups created here that a catch-up could not settle: its lists left them out while
  /// their creation was unanswered, and the news the backend still held did not tell of it.
  ///
  /// Once such a creation is answered, only lists read after the answer can say whether the
  /// self user is still in the group (its news may be among those forgotten), so the sync layer
  /// catches up again; news that tell of the creation settle the group without one.
  public var createdGroupsToConfirm: Set<UUID>
  /// The messages whose deletion by this device the backend answered before the news of that
  /// deletion were read.
  ///
  /// News are read in pages, and the page that tells of such a message's posting may come after
  /// the answer: the sync layer passes over it, so that the message does not come back in
  /// between, nor for good if the backend forgets the news of its deletion. Each one is kept
  /// until those news are read or a catch-up moves the cursor past them.
  public var deletedMessagesAwaitingNews: Set<UUID>

  /// Creates metadata; nothing known by default.
  public init(
    lastNotificationID: UUID? = nil, usersToFetch: Set<UUID> = [],
    createdGroupsToConfirm: Set<UUID> = [], deletedMessagesAwaitingNews: Set<UUID> = []
  ) {
    self.lastNotificationID = lastNotificationID
    self.usersToFetch = usersToFetch
    self.createdGroupsToConfirm = createdGroupsToConfirm
    self.deletedMessagesAwaitingNews = deletedMessagesAwaitingNews
  }

  private enum CodingKeys: String, CodingKey {
    case lastNotificationID
    case usersToFetch
    case createdGroupsToConfirm
    case deletedMessagesAwaitingNews
  }

  /// Reads metadata; a store written before ``usersToFetch``, ``createdGroupsToConfirm`` or
  /// ``deletedMessagesAwaitingNews`` existed owes no fetch, has no group to confirm and no
  /// deleted message to wait for.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    lastNotificationID = try container.decodeIfPresent(UUID.self, forKey: .lastNotificationID)
    usersToFetch = Set(
      try container.decodeIfPresent([UUID].self, forKey: .usersToFetch) ?? [])
    createdGroupsToConfirm = Set(
      try container.decodeIfPresent([UUID].self, forKey: .createdGroupsToConfirm) ?? [])
    deletedMessagesAwaitingNews = Set(
      try container.decodeIfPresent([UUID].self, forKey: .deletedMessagesAwaitingNews) ?? [])
  }

  /// Writes metadata, the sets in id order so that equal metadata writes equal bytes; an empty
  /// set of groups to confirm or of deleted messages is left out, so stores that never had one
  /// read as before.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(lastNotificationID, forKey: .lastNotificationID)
    try container.encode(usersToFetch.sorted(), forKey: .usersToFetch)
    if !createdGroupsToConfirm.isEmpty {
      try container.encode(createdGroupsToConfirm.sorted(), forKey: .createdGroupsToConfirm)
    }
    if !deletedMessagesAwaitingNews.isEmpty {
      try container.encode(
        deletedMessagesAwaitingNews.sorted(), forKey: .deletedMessagesAwaitingNews)
    }
  }
}
