import Foundation

/// What the sync layer keeps besides objects and pending changes, saved with the sync context so
/// that it survives a restart.
package struct SyncMetadata: Sendable, Hashable, Codable {
  /// The id of the last notification applied; the next fetch asks for those after it.
  package var lastNotificationID: UUID?
  /// The users whose profiles the sync layer still owes a fetch: named by news and unknown
  /// here, or contacts whose connection the news showed accepted.
  ///
  /// Saved with the cursor that moved past their news, and kept until a fetch of them is
  /// answered, so that neither a failed fetch nor a restart loses them.
  package var usersToFetch: Set<UUID>
  /// The groups created here that a catch-up could not settle: its lists left them out while
  /// their creation was unanswered, and the news the backend still held did not tell of it.
  ///
  /// Once such a creation is answered, only lists read after the answer can say whether the
  /// self user is still in the group (its news may be among those forgotten), so the sync layer
  /// catches up again; news that tell of the creation settle the group without one.
  package var createdGroupsToConfirm: Set<UUID>
  /// The messages whose deletion by this device the backend answered before the news of that
  /// deletion were read.
  ///
  /// News are read in pages, and the page that tells of such a message's posting may come after
  /// the answer: the sync layer passes over it, so that the message does not come back in
  /// between, nor for good if the backend forgets the news of its deletion. Each one is kept
  /// until those news are read, or until every news the backend held when it was answered
  /// were read (see ``forgetAwaitedNews(recordedBefore:)``).
  package var deletedMessagesAwaitingNews: Set<UUID>
  /// The changes of group members made here that the backend answered before the news of them
  /// were read, in the order of their answers.
  ///
  /// Until its news are read, news of a member such a change names are older than the answer,
  /// and leave the member where the answer put them: a member the user took out and added back
  /// stays in while the news of the removal are read. Each one is kept as long as a deleted
  /// message is.
  package var memberChangesAwaitingNews: [AnsweredMemberChange]
  /// The new names (and the accent and handle) of the self user and of groups that the backend
  /// answered before the news of them were read, in the order of their answers.
  ///
  /// Until its news are read, news of such a key tell of an older value, and leave the key as
  /// the answer set it: a name the user gave twice shows the second while the news of the first
  /// are read. Each one is kept as long as a deleted message is.
  package var valueChangesAwaitingNews: [AnsweredValueChange]
  /// How many answered member and value changes were recorded so far, which numbers the next.
  package var answersRecorded: Int
  /// The groups this device left, whose leaving the backend answered before the news of it
  /// were read.
  ///
  /// News of the group older than the answer, such as those of its creation, would bring it
  /// back until the news of the leaving: the sync layer passes over them. Each one is kept as
  /// long as a deleted message is.
  package var leftGroupsAwaitingNews: Set<UUID>

  /// Metadata of a client that has synchronised nothing yet.
  package init() {
    self.init(lastNotificationID: nil)
  }

  /// Creates metadata; nothing known but what is given.
  package init(
    lastNotificationID: UUID?, usersToFetch: Set<UUID> = [],
    createdGroupsToConfirm: Set<UUID> = [], deletedMessagesAwaitingNews: Set<UUID> = [],
    memberChangesAwaitingNews: [AnsweredMemberChange] = [],
    valueChangesAwaitingNews: [AnsweredValueChange] = [], answersRecorded: Int = 0,
    leftGroupsAwaitingNews: Set<UUID> = []
  ) {
    self.lastNotificationID = lastNotificationID
    self.usersToFetch = usersToFetch
    self.createdGroupsToConfirm = createdGroupsToConfirm
    self.deletedMessagesAwaitingNews = deletedMessagesAwaitingNews
    self.memberChangesAwaitingNews = memberChangesAwaitingNews
    self.valueChangesAwaitingNews = valueChangesAwaitingNews
    self.answersRecorded = answersRecorded
    self.leftGroupsAwaitingNews = leftGroupsAwaitingNews
  }

  private enum CodingKeys: String, CodingKey {
    case lastNotificationID
    case usersToFetch
    case createdGroupsToConfirm
    case deletedMessagesAwaitingNews
    case memberChangesAwaitingNews
    case valueChangesAwaitingNews
    case answersRecorded
    case leftGroupsAwaitingNews
  }

  /// Reads metadata; a store written before `usersToFetch`, `createdGroupsToConfirm` or the
  /// records of answers awaiting news existed owes no fetch, has no group to confirm and awaits
  /// no news.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    lastNotificationID = try container.decodeIfPresent(UUID.self, forKey: .lastNotificationID)
    usersToFetch = Set(
      try container.decodeIfPresent([UUID].self, forKey: .usersToFetch) ?? [])
    createdGroupsToConfirm = Set(
      try container.decodeIfPresent([UUID].self, forKey: .createdGroupsToConfirm) ?? [])
    deletedMessagesAwaitingNews = Set(
      try container.decodeIfPresent([UUID].self, forKey: .deletedMessagesAwaitingNews) ?? [])
    memberChangesAwaitingNews =
      try container.decodeIfPresent(
        [AnsweredMemberChange].self, forKey: .memberChangesAwaitingNews) ?? []
    valueChangesAwaitingNews =
      try container.decodeIfPresent(
        [AnsweredValueChange].self, forKey: .valueChangesAwaitingNews) ?? []
    answersRecorded =
      try container.decodeIfPresent(Int.self, forKey: .answersRecorded) ?? 0
    leftGroupsAwaitingNews = Set(
      try container.decodeIfPresent([UUID].self, forKey: .leftGroupsAwaitingNews) ?? [])
  }

  /// Writes metadata, the sets in id order so that equal metadata writes equal bytes; the
  /// groups to confirm and the records of answers awaiting news are left out while empty, so
  /// stores that never had one read as before.
  package func encode(to encoder: any Encoder) throws {
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
    if !memberChangesAwaitingNews.isEmpty {
      try container.encode(memberChangesAwaitingNews, forKey: .memberChangesAwaitingNews)
    }
    if !valueChangesAwaitingNews.isEmpty {
      try container.encode(valueChangesAwaitingNews, forKey: .valueChangesAwaitingNews)
    }
    if answersRecorded != 0 {
      try container.encode(answersRecorded, forKey: .answersRecorded)
    }
    if !leftGroupsAwaitingNews.isEmpty {
      try container.encode(leftGroupsAwaitingNews.sorted(), forKey: .leftGroupsAwaitingNews)
    }
  }
}
