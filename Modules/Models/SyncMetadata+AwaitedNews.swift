import Foundation

/// Which records of answers awaiting their news existed at one moment, so that they can be
/// forgotten once every news the backend held after that moment was read.
package struct AwaitedNewsMark: Sendable, Hashable {
  /// The deleted messages awaiting news then.
  let messages: Set<UUID>
  /// The left groups awaiting news then.
  let groups: Set<UUID>
  /// How many answered member and value changes had been recorded then.
  let answers: Int
}

extension SyncMetadata {
  /// Marks the records of answers awaiting news that exist now; take it before asking for news.
  package var awaitedNewsMark: AwaitedNewsMark {
    AwaitedNewsMark(
      messages: deletedMessagesAwaitingNews, groups: leftGroupsAwaitingNews,
      answers: answersRecorded)
  }

  /// Forgets the records that existed at `mark`, once news read to the end after it, or a
  /// catch-up that read the newest notification after it, went past their news.
  ///
  /// The backend applied each of those changes before it answered, so a page that says the
  /// backend has no more news, fetched after the answer, comes after the news of the change:
  /// news not read by then were forgotten by the backend, or could not be read, and will not
  /// come.
  package mutating func forgetAwaitedNews(recordedBefore mark: AwaitedNewsMark) {
    deletedMessagesAwaitingNews.subtract(mark.messages)
    leftGroupsAwaitingNews.subtract(mark.groups)
    memberChangesAwaitingNews.removeAll { $0.number < mark.answers }
    valueChangesAwaitingNews.removeAll { $0.number < mark.answers }
  }

  /// Forgets the records made since `mark`: their answers came to requests whose news may
  /// already be behind the cursor.
  package mutating func forgetAwaitedNews(recordedSince mark: AwaitedNewsMark) {
    deletedMessagesAwaitingNews.formIntersection(mark.messages)
    leftGroupsAwaitingNews.formIntersection(mark.groups)
    memberChangesAwaitingNews.removeAll { $0.number >= mark.answers }
    valueChangesAwaitingNews.removeAll { $0.number >= mark.answers }
  }

  /// Records that the backend answered a change of this device that added `users` to group
  /// `conversation` (or removed them), before its news were read; `fromAnyone` when it answered
  /// that it held them so already, so that news of any user moving them are the ones awaited.
  package mutating func awaitNews(
    ofMembers users: Set<UUID>, joining joined: Bool, conversation: UUID,
    fromAnyone: Bool = false
  ) {
    guard !users.isEmpty else { return }
    memberChangesAwaitingNews.append(
      AnsweredMemberChange(
        number: answersRecorded, conversation: conversation, joined: joined, users: users,
        fromAnyone: fromAnyone))
    answersRecorded += 1
  }

  /// The members of group `conversation` that answered changes awaiting news name.
  package func membersAwaitingNews(in conversation: UUID) -> Set<UUID> {
    memberChangesAwaitingNews.reduce(into: []) { members, change in
      if change.conversation == conversation { members.formUnion(change.users) }
    }
  }

  /// Takes what news of `users` joining group `conversation` (or leaving it) are the news of;
  /// returns whether there was any.
  ///
  /// News of the self user take the first answered change of exactly those users. Failing
  /// that, news of anyone take those users out of the changes the backend answered as made
  /// already (``AnsweredMemberChange/fromAnyone``), each of which goes once no user is left.
  @discardableResult
  package mutating func takeMemberChange(
    of users: Set<UUID>, joining joined: Bool, conversation: UUID, fromSelfUser: Bool = true
  ) -> Bool {
    if fromSelfUser,
      let index = memberChangesAwaitingNews.firstIndex(where: {
        !$0.fromAnyone && $0.conversation == conversation && $0.joined == joined
          && $0.users == users
      })
    {
      memberChangesAwaitingNews.remove(at: index)
      return true
    }
    var took = false
    for index in memberChangesAwaitingNews.indices.reversed() {
      let change = memberChangesAwaitingNews[index]
      guard change.fromAnyone, change.conversation == conversation, change.joined == joined,
        !change.users.isDisjoint(with: users)
      else { continue }
      took = true
      memberChangesAwaitingNews[index].users.subtract(users)
      if memberChangesAwaitingNews[index].users.isEmpty {
        memberChangesAwaitingNews.remove(at: index)
      }
    }
    return took
  }

  /// Forgets the answered member changes and renames of group `conversation`, whose news will
  /// not come here: the self user is no longer in it.
  package mutating func forgetChanges(ofGroup conversation: UUID) {
    memberChangesAwaitingNews.removeAll { $0.conversation == conversation }
    valueChangesAwaitingNews.removeAll { $0.value.key == .groupName(conversation) }
  }

  /// Records that the backend answered a change of this device that set `value`, before its
  /// news were read.
  package mutating func awaitNews(of value: AnsweredValue) {
    valueChangesAwaitingNews.append(AnsweredValueChange(number: answersRecorded, value: value))
    answersRecorded += 1
  }

  /// Whether an answered change of `key` awaits its news.
  package func isAwaitingNews(of key: AnsweredKey) -> Bool {
    valueChangesAwaitingNews.contains { $0.value.key == key }
  }

  /// Whether news telling of `value` are older than an answered change of its key that awaits
  /// its news: they end the wait of the first change of that very value, if any, and are older
  /// only if another still waits.
  package mutating func passesOver(_ value: AnsweredValue) -> Bool {
    guard !valueChangesAwaitingNews.isEmpty else { return false }
    takeValueChange(value)
    return isAwaitingNews(of: value.key)
  }

  /// Takes the first answered change that news telling of `value` are the news of; returns
  /// whether there was one.
  @discardableResult
  package mutating func takeValueChange(_ value: AnsweredValue) -> Bool {
    guard let index = valueChangesAwaitingNews.firstIndex(where: { $0.value == value }) else {
      return false
    }
    valueChangesAwaitingNews.remove(at: index)
    return true
  }
}
