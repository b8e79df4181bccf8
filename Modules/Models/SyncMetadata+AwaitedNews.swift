import Foundation

extension SyncMetadata {
  /// Records that the backend answered a change of this device that set `key`, at the server's
  /// `version`; a key answered again keeps the later version.
  ///
  /// An answer that did not say its version leaves only a deleted message or a left group
  /// waiting, until its own news: news of their posting or making are older whatever their
  /// version. Any other key it set takes the news as they come.
  package mutating func awaitNews(of key: AwaitedKey, answeredAt version: Int?) {
    switch (key, version) {
    case (_, let version?):
      awaitedNews[key] = max(awaitedNews[key] ?? version, version)
    case (.deletedMessage, nil), (.leftGroup, nil):
      awaitedNews[key] = Int.max
    default:
      break
    }
  }

  /// Whether news of `key` heard at `news` are older than the answer that set it, and so leave
  /// it as the answer set it; news at the answer's version or later end the wait.
  ///
  /// News that do not say their version are applied, and end no wait.
  package mutating func passesOver(_ key: AwaitedKey, heard news: HeardNews?) -> Bool {
    guard let awaited = awaitedNews[key], let version = news?.version else { return false }
    guard version < awaited else {
      awaitedNews[key] = nil
      return false
    }
    return true
  }

  /// The latest version an answer awaiting its news said, if any said one.
  package var latestAwaitedVersion: Int? {
    awaitedNews.values.lazy.filter { $0 != .max }.max()
  }

  /// Whether an answer that set `key` awaits its news.
  package func isAwaitingNews(of key: AwaitedKey) -> Bool {
    awaitedNews[key] != nil
  }

  /// Whether an answer that set `key` is newer than news heard at `news`, without ending any
  /// wait; news that do not say their version are older than every answer.
  package func isAnswered(_ key: AwaitedKey, after news: HeardNews?) -> Bool {
    guard let awaited = awaitedNews[key] else { return false }
    return news?.version.map { $0 < awaited } ?? true
  }

  /// Ends the wait of `key`, whose own news were read.
  package mutating func endWait(of key: AwaitedKey) {
    awaitedNews[key] = nil
  }

  /// Forgets the keys whose answers came at `version` or before, once news read to the end at
  /// that version, or a catch-up that read the backend's state at it, went past their news.
  package mutating func forgetAwaitedNews(through version: Int?) {
    guard let version, !awaitedNews.isEmpty else { return }
    awaitedNews = awaitedNews.filter { $0.value > version }
  }

  /// Forgets the names and members of group `conversation` awaiting news, which will not come
  /// here: the self user is no longer in it.
  package mutating func forgetChanges(ofGroup conversation: UUID) {
    guard !awaitedNews.isEmpty else { return }
    awaitedNews = awaitedNews.filter { $0.key.group != conversation }
  }
}
