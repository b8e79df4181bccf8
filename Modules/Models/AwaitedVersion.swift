/// How long an answer of this device keeps a key it set from older news: up to the server
/// version the answer said, or, for a deletion answered without one, until the key's own news.
package enum AwaitedVersion: Sendable, Hashable, Comparable {
  /// News of the key below this server version are older than the answer.
  case answered(Int)
  /// Every news of the key are older until its own come: a message's posting, or a group's
  /// making, is older than its deletion whatever its version.
  case ownNews

  /// The server version the answer said, if it said one.
  package var version: Int? {
    if case .answered(let version) = self { version } else { nil }
  }

  /// Whether the answer is newer than news heard at `version`, which then leave the key as the
  /// answer set it.
  package func isNewer(thanNewsAt version: Int) -> Bool {
    switch self {
    case .answered(let answered): version < answered
    case .ownNews: true
    }
  }
}
