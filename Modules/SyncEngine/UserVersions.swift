import Foundation
import ParsingCore
import Seams

/// The server's version at which the sync context last took each user's profile, so that a
/// fetch read before it, overtaken on its way back, does not put back an older profile.
///
/// News of a user count at the version of the page that told them, which is at least that of
/// each of its notifications; a fetch counts at the version its response says. A read that
/// does not say its version is applied as it comes.
final class UserVersions: Sendable {
  private let heard = Locked([UUID: Int]())

  /// Records that the profiles of `users` were heard at `version`.
  func hear(_ users: some Sequence<UUID>, at version: ServerVersion?) {
    guard let version = version?.rawValue else { return }
    heard.withLock { heard in
      for user in users { heard[user] = max(heard[user] ?? version, version) }
    }
  }

  /// Whether a profile of `user` read at `version` is at least as new as the one the sync
  /// context holds; if it is, it is recorded as heard.
  ///
  /// Call it where the profile is applied, in the same turn of the context.
  func claim(_ user: UUID, readAt version: ServerVersion?) -> Bool {
    guard let version = version?.rawValue else { return true }
    return heard.withLock { heard in
      guard heard[user, default: .min] <= version else { return false }
      heard[user] = version
      return true
    }
  }
}
