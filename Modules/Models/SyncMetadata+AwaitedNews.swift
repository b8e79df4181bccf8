import Foundation

extension SyncMetadata {
  /// Records that the backend answered a change of this device that set `key` to `value`, at
  /// the server's `version`; a key answered again keeps the later answer.
  ///
  /// An answer that did not say its version leaves only a deleted message or a left group
  /// waiting, until its own news: news of their posting or making are older whatever their
  /// version. Any other key it set takes the news as they come.
  package mutating func awaitNews(
    of key: AwaitedKey, answeredAt version: Int?, setting value: AnsweredValue? = nil
  ) {
    let answered: AwaitedVersion
    switch (key, version) {
    case (_, let version?): answered = .answered(version)
    case (.deletedMessage, nil), (.leftGroup, nil): answered = .ownNews
    default: return
    }
    if let earlier = awaitedNews[key], earlier > answered { return }
    awaitedNews[key] = answered
    answeredValues[key] = value
  }

  /// Whether news of `key` heard at `news` are older than the answer that set it, and so leave
  /// it as the answer set it; news at the answer's version or later end the wait.
  ///
  /// News that do not say their version are applied, and end no wait.
  package mutating func passesOver(_ key: AwaitedKey, heard news: HeardNews?) -> Bool {
    guard let awaited = awaitedNews[key], let version = news?.version else { return false }
    guard awaited.isNewer(thanNewsAt: version) else {
      endWait(of: key)
      return false
    }
    return true
  }

  /// The latest version an answer awaiting its news said, if any said one.
  package var latestAwaitedVersion: Int? {
    awaitedNews.values.lazy.compactMap(\.version).max()
  }

  /// Whether an answer that set `key` awaits its news.
  package func isAwaitingNews(of key: AwaitedKey) -> Bool {
    awaitedNews[key] != nil
  }

  /// Whether an answer that set `key` is newer than news heard at `news`, without ending any
  /// wait; news that do not say their version are older than every answer.
  package func isAnswered(_ key: AwaitedKey, after news: HeardNews?) -> Bool {
    guard let awaited = awaitedNews[key] else { return false }
    return news?.version.map { awaited.isNewer(thanNewsAt: $0) } ?? true
  }

  /// The value an answer newer than news heard at `news` set `key` to, if it was kept.
  package func answeredValue(of key: AwaitedKey, after news: HeardNews?) -> AnsweredValue? {
    isAnswered(key, after: news) ? answeredValues[key] : nil
  }

  /// Ends the wait of `key`, whose own news were read.
  package mutating func endWait(of key: AwaitedKey) {
    awaitedNews[key] = nil
    answeredValues[key] = nil
  }

  /// Forgets the keys whose answers came at `version` or before, once news read to the end at
  /// that version, or a catch-up that read the backend's state at it, went past their news.
  package mutating func forgetAwaitedNews(through version: Int?) {
    guard let version, !awaitedNews.isEmpty else { return }
    awaitedNews = awaitedNews.filter { $0.value.isNewer(thanNewsAt: version) }
    keepValuesOfAwaitedKeys()
  }

  /// Whether an answer to a change of group `conversation`'s name or members is newer than news
  /// heard at `news`: the backend applies those changes only for a member, so the self user was
  /// in the group after such news; news that do not say their version are older than every
  /// answer.
  ///
  /// A creation does not count: a creation sent again is answered with the group as it was
  /// made, at the version of the answer, whether the user is still in it or not.
  package func isAnsweredAsMember(ofGroup conversation: UUID, after news: HeardNews?) -> Bool {
    guard !awaitedNews.isEmpty else { return false }
    return awaitedNews.contains { key, answered in
      switch key {
      case .groupName(conversation), .member(_, conversation):
        news?.version.map { answered.isNewer(thanNewsAt: $0) } ?? true
      default: false
      }
    }
  }

  /// Forgets the names and members of group `conversation` answered before news heard at
  /// `news` took the self user out of it.
  ///
  /// Later news of the group are newer than those answers. Answers after the news stay, since
  /// news that bring the self user back may still come before theirs; news without a version
  /// forget every one.
  package mutating func forgetChanges(ofGroup conversation: UUID, before news: HeardNews?) {
    guard !awaitedNews.isEmpty else { return }
    let version = news?.version
    awaitedNews = awaitedNews.filter { key, answered in
      key.group != conversation || version.map { answered.isNewer(thanNewsAt: $0) } == true
    }
    keepValuesOfAwaitedKeys()
  }

  /// Forgets the answered values of keys that no longer await news.
  private mutating func keepValuesOfAwaitedKeys() {
    guard !answeredValues.isEmpty else { return }
    answeredValues = answeredValues.filter { awaitedNews[$0.key] != nil }
  }
}
