import Foundation
import Seams

/// Which fetch of each user the sync context last took its profile from, so that the answer to
/// an earlier fetch, overtaken on its way back, does not put back a profile older than the one
/// a later fetch or the news already brought.
///
/// Fetches are numbered as they go out. The news a pull applies to a user count as newer than
/// every fetch out at that moment, which was worked out before the client read them or at best
/// tells the same; a later change brings news of its own.
final class UserFetchOrder: Sendable {
  private struct State {
    /// The number of the last fetch sent.
    var lastSent: UInt64 = 0
    /// For each user, the number of the fetch (or of the last fetch sent when news came)
    /// whose profile the sync context holds.
    var applied: [UUID: UInt64] = [:]
  }

  private let state = Locked(State())

  /// Numbers a fetch as it goes out.
  func send() -> UInt64 {
    state.withLock { state in
      state.lastSent += 1
      return state.lastSent
    }
  }

  /// Whether fetch `fetch`'s profile of `user` is still the newest to apply.
  ///
  /// If it is, it is recorded as applied: call it where the profile is applied, in the same
  /// turn of the context.
  func claim(_ user: UUID, for fetch: UInt64) -> Bool {
    state.withLock { state in
      guard state.applied[user, default: 0] < fetch else { return false }
      state.applied[user] = fetch
      return true
    }
  }

  /// Records that news changed `users`' profiles: no fetch already out may undo them.
  func newsApplied(to users: Set<UUID>) {
    state.withLock { state in
      for user in users {
        state.applied[user] = max(state.applied[user, default: 0], state.lastSent)
      }
    }
  }
}
