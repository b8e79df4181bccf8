import Foundation

/// What the server applied for each key the model follows, in the server's order, and the two
/// rules of the sync promise that order states: the server never applies the same change of
/// this client twice, and never lets a change of this client that it applied overwrite a later
/// change by another device.
///
/// A change is one value the user saved for a key: the key's edit count at that save tells two
/// saves of the same value apart, so a user who saves a value again makes a new change. No
/// application is waived: a request sent again after a lost answer or a restart goes under its
/// first idempotency key, and the server answers that repeat without applying it again.
package struct AppliedChanges<Key: Hashable & Sendable, Value: Hashable & Sendable>: Sendable {
  /// One application of a key's value on the server.
  package enum Entry: Equatable {
    /// A request of this client, made when the key had been edited `edits` times.
    case client(Value, edits: Int)
    /// Another device or user.
    case remote
  }

  /// A rule of the server's order that an application broke.
  package enum Breach: Error, Equatable, CustomStringConvertible {
    /// The server applied the same change of this client a second time.
    case appliedTwice(key: Key, value: Value)
    /// The server applied a change of this client again after another device's later change.
    case overwroteLaterChange(key: Key, value: Value)

    /// Names the key, the value and the rule.
    package var description: String {
      switch self {
      case .appliedTwice(let key, let value):
        "the server applied the same change of this client to \(key) twice (\(value))"
      case .overwroteLaterChange(let key, let value):
        "the server applied a change of this client to \(key) again (\(value)), "
          + "overwriting a later change by another device"
      }
    }
  }

  private var history: [Key: [Entry]] = [:]

  /// Creates an empty record.
  package init() {}

  /// Records that the server applied a request of this client that carried `value` for `key`
  /// when the key had been edited `edits` times; returns the rule it broke, if any.
  package mutating func clientApplied(_ key: Key, _ value: Value, edits: Int) -> Breach? {
    defer { history[key, default: []].append(.client(value, edits: edits)) }
    let entries = history[key] ?? []
    guard
      let first = entries.lastIndex(where: { entry in
        if case .client(value, edits) = entry { true } else { false }
      })
    else { return nil }
    return entries[(first + 1)...].contains(.remote)
      ? .overwroteLaterChange(key: key, value: value) : .appliedTwice(key: key, value: value)
  }

  /// Records that another device or user changed `key` on the server.
  package mutating func remoteApplied(_ key: Key) {
    history[key, default: []].append(.remote)
  }
}
