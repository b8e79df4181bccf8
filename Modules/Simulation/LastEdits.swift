import Foundation
import Models

/// The value the user last saved for each key the simulator follows, kept until the server is
/// seen holding it or a change made elsewhere to the same key may rightly replace it.
///
/// After that, an edit that is neither on the client nor on the server was lost without a word:
/// the client went back to the server's value as if the user had never asked, which the check
/// of values not pending cannot see (the two agree).
struct LastEdits: Sendable, Equatable {
  /// A key the user can change and another user, or another device, can change too.
  enum Key: Hashable, Sendable, CustomStringConvertible {
    /// The self user's name.
    case selfName
    /// The self user's accent.
    case accent
    /// A group's name.
    case groupName(UUID)
    /// Whether `user` is in `group`: a member the user added or removed.
    case member(UUID, group: UUID)
    /// The status of the self user's connection with a contact.
    case connection(UUID)

    /// The object the key belongs to; `nil` for the self user's keys.
    var object: ObjectReference? {
      switch self {
      case .selfName, .accent: nil
      case .groupName(let group), .member(_, let group): ObjectReference(.conversation, group)
      case .connection(let contact): ObjectReference(.connection, contact)
      }
    }

    var description: String {
      switch self {
      case .selfName: "name"
      case .accent: "accent"
      case .groupName(let group): "name of group \(group)"
      case .member(let user, let group): "membership of \(user) in group \(group)"
      case .connection(let contact): "connection status with \(contact)"
      }
    }
  }

  /// The values, by key.
  private(set) var values: [Key: String] = [:]

  /// How many times the user saved each key: a change's identity beside its value.
  private(set) var editCounts: [Key: Int] = [:]

  /// Follows `value` as the user's last for `key`.
  mutating func saved(_ value: String, for key: Key) {
    values[key] = value
    editCounts[key, default: 0] += 1
  }

  /// Counts a save of `key` without following a value: a new change, which the server's order
  /// checks count, but one whose value nobody should expect to stay.
  ///
  /// A save back to the value the user's change is measured from asks for nothing the server's
  /// value does not say; a leave is a change of the self user's membership that another member
  /// may undo.
  mutating func savedUnfollowed(_ key: Key) {
    values[key] = nil
    editCounts[key, default: 0] += 1
  }

  /// Stops following `key`: something other than the user may now change it.
  mutating func forget(_ key: Key) {
    values[key] = nil
  }

  /// Stops following every key of `object` (a group the self user left or was removed from, a
  /// refusal the app gave up); for a user, the self user's, the only one the user edits.
  mutating func forget(keysOf object: ObjectReference) {
    values = values.filter { key, _ in
      key.object.map { $0 != object } ?? (object.entity != .user)
    }
  }

  /// The first edit, in a stable order, that is neither `here` nor `there` (the server); a key
  /// `there` holds the user's value for is forgotten, since news may change it from then on,
  /// and one `here` does not hold (`nil`: its object is gone) or `skipping` names is left.
  mutating func lost(
    here: (Key) -> String?, there: (Key) -> String?, skipping: (Key) -> Bool = { _ in false }
  ) -> String? {
    var lost: [String] = []
    for (key, value) in values {
      if there(key) == value {
        values[key] = nil
        continue
      }
      guard !skipping(key), let mine = here(key), mine != value else { continue }
      lost.append(
        "the user's last \(key), \(value), is neither here (\(mine)) nor on the server "
          + "(\(there(key) ?? "none"))")
    }
    return lost.min()
  }
}
