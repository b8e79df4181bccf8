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
  /// The keys that changes of this device set, answered before their news were read, each
  /// with how long its latest answer keeps it from older news: up to the answer's version, or
  /// until its own news (``AwaitedVersion``).
  ///
  /// News are read in pages, and older news of such a key (another device's rename before this
  /// one, the posting of a message deleted here, the making of a group left here) may come
  /// after the answer: news below the version leave the key as the answer set it, and news at
  /// it or later end the wait. A key is also forgotten once news read to the end, or a
  /// catch-up, went past its version (see ``forgetAwaitedNews(through:)``). A wait outlives
  /// the object: news that drop a group leave the keys answered after them waiting.
  package internal(set) var awaitedNews: [AwaitedKey: AwaitedVersion]
  /// The values the latest answers set a group's name and members to, while those keys await
  /// their news: news that take the self user out drop the group with its last synchronised
  /// values, and news older than the answer that bring them back take the keys from here.
  ///
  /// Its keys are always among those of ``awaitedNews``; it is kept apart because it is small
  /// while the waits of new groups and messages may number in the tens of thousands.
  package internal(set) var answeredValues: [AwaitedKey: AnsweredValue]

  /// Metadata of a client that has synchronised nothing yet.
  package init() {
    self.init(lastNotificationID: nil)
  }

  /// Creates metadata; nothing known but what is given.
  package init(
    lastNotificationID: UUID?, usersToFetch: Set<UUID> = [],
    createdGroupsToConfirm: Set<UUID> = [], awaitedNews: [AwaitedKey: AwaitedVersion] = [:],
    answeredValues: [AwaitedKey: AnsweredValue] = [:]
  ) {
    self.lastNotificationID = lastNotificationID
    self.usersToFetch = usersToFetch
    self.createdGroupsToConfirm = createdGroupsToConfirm
    self.awaitedNews = awaitedNews
    self.answeredValues = answeredValues.filter { awaitedNews[$0.key] != nil }
  }

  private enum CodingKeys: String, CodingKey {
    case lastNotificationID
    case usersToFetch
    case createdGroupsToConfirm
    case awaitedNews
    // Written by stores before versions: their deleted messages and left groups still wait.
    case deletedMessagesAwaitingNews
    case leftGroupsAwaitingNews
  }

  /// Reads metadata; a store written before `usersToFetch`, `createdGroupsToConfirm` or the keys
  /// awaiting news existed owes no fetch, has no group to confirm and awaits no news.
  ///
  /// A store written before the keys had versions keeps its deleted messages and left groups
  /// waiting for their own news; its other answered keys take the news as they come.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    lastNotificationID = try container.decodeIfPresent(UUID.self, forKey: .lastNotificationID)
    usersToFetch = Set(
      try container.decodeIfPresent([UUID].self, forKey: .usersToFetch) ?? [])
    createdGroupsToConfirm = Set(
      try container.decodeIfPresent([UUID].self, forKey: .createdGroupsToConfirm) ?? [])
    let answers =
      try container.decodeIfPresent([StoredAwaitedAnswer].self, forKey: .awaitedNews) ?? []
    awaitedNews = [:]
    answeredValues = [:]
    for answer in answers {
      // A wait for the key's own news was written as the largest version before it had a name.
      let version = answer.version.flatMap { $0 == .max ? nil : $0 }
      awaitNews(of: answer.key, answeredAt: version, setting: answer.value)
    }
    for message in try container.decodeIfPresent(
      [UUID].self, forKey: .deletedMessagesAwaitingNews) ?? []
    {
      awaitNews(of: .deletedMessage(message), answeredAt: nil)
    }
    for group in try container.decodeIfPresent([UUID].self, forKey: .leftGroupsAwaitingNews)
      ?? []
    {
      awaitNews(of: .leftGroup(group), answeredAt: nil)
    }
  }

  /// Writes metadata, the sets in id order and the awaited keys by version, so that equal
  /// metadata writes equal bytes; the groups to confirm and the awaited keys are left out while
  /// empty, so stores that never had one read as before.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(lastNotificationID, forKey: .lastNotificationID)
    try container.encode(usersToFetch.sorted(), forKey: .usersToFetch)
    if !createdGroupsToConfirm.isEmpty {
      try container.encode(createdGroupsToConfirm.sorted(), forKey: .createdGroupsToConfirm)
    }
    if !awaitedNews.isEmpty {
      let answers = awaitedNews.sorted { ($0.value, "\($0.key)") < ($1.value, "\($1.key)") }
        .map { key, awaited in
          StoredAwaitedAnswer(key: key, version: awaited.version, value: answeredValues[key])
        }
      try container.encode(answers, forKey: .awaitedNews)
    }
  }
}
