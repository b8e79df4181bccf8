import Foundation

/// What the server applied for each key the model follows, in the server's order, and the two
/// rules of the sync promise that order states: the server never applies the same change of
/// this client twice, and never lets a change of this client that it applied overwrite a later
/// change by another device.
///
/// A change is one value the user saved for a key: the key's edit count at that save tells two
/// saves of the same value apart, so a user who saves a value again makes a new change.
package struct AppliedChanges<Key: Hashable & Sendable, Value: Hashable & Sendable>: Sendable {
  /// One application of a key's value on the server.
  package enum Entry: Equatable {
    /// A request of this client, made when the key had been edited `edits` times.
    case client(Value, edits: Int, request: Int)
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

  /// Why a rule was waived for one application, counted so that none grows unseen.
  package enum Exemption: String, CaseIterable, Sendable {
    /// The change went again after its first request's answer was lost: until a resend reuses
    /// the first request's idempotency key, the server may apply it twice.
    case resentAfterLostAnswer = "resent after a lost answer"
    /// The same, where another device changed the key in between: the order of the two is not
    /// known when the answer is lost, so the resend may overwrite the later change.
    case overwroteAfterLostAnswer = "resent after a lost answer over a later change"
    /// The change went again after the app was killed before its answer: resends after a
    /// restart go under new idempotency keys.
    case resentAfterRestart = "resent after a restart"
  }

  package private(set) var history: [Key: [Entry]] = [:]
  /// The requests whose answers were lost after the server applied them.
  private var lostAnswers: Set<Int> = []
  /// The requests whose answers the app may not have heard before it was killed.
  private var unheardAtRestart: Set<Int> = []

  /// Creates an empty record.
  package init() {}
  /// How often each exemption was granted.
  package private(set) var exemptions: [Exemption: Int] = [:]

  /// Records that the server applied request `request` of this client, which carried `value`
  /// for `key` when the key had been edited `edits` times; returns the rule it broke, if any.
  package mutating func clientApplied(_ key: Key, _ value: Value, edits: Int, request: Int)
    -> Breach?
  {
    defer { history[key, default: []].append(.client(value, edits: edits, request: request)) }
    let entries = history[key] ?? []
    guard
      let first = entries.lastIndex(where: { entry in
        if case .client(value, edits, _) = entry { true } else { false }
      }), case .client(_, _, let earlier) = entries[first]
    else { return nil }
    let overwrites = entries[(first + 1)...].contains(.remote)
    if lostAnswers.contains(earlier) {
      exemptions[overwrites ? .overwroteAfterLostAnswer : .resentAfterLostAnswer, default: 0] += 1
      return nil
    }
    if unheardAtRestart.contains(earlier) {
      exemptions[.resentAfterRestart, default: 0] += 1
      return nil
    }
    return overwrites
      ? .overwroteLaterChange(key: key, value: value) : .appliedTwice(key: key, value: value)
  }

  /// Records that the app was killed while the answers to `requests` may have been on their way.
  package mutating func killed(beforeHearing requests: some Sequence<Int>) {
    unheardAtRestart.formUnion(requests)
  }

  /// Records that another device or user changed `key` on the server.
  package mutating func remoteApplied(_ key: Key) {
    history[key, default: []].append(.remote)
  }

  /// Records that the answer to `request`, which the server applied, was lost on its way back.
  package mutating func answerLost(_ request: Int) {
    lostAnswers.insert(request)
  }
}
