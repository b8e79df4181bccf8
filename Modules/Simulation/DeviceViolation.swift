/// A rule a simulation of several devices found broken: which, and what was seen.
public struct DeviceViolation: Sendable, Hashable, CustomStringConvertible {
  /// The rule broken.
  public enum Kind: Sendable, Hashable {
    /// The world could not be set up.
    case setup
    /// A device's notification cursor moved back in its user's stream.
    case cursorMovedBack
    /// At the end a device showed something other than what the backend holds, or had work
    /// left.
    case endStateDiffers
    /// The backend applied one change of one device twice in the same life of its app.
    case appliedTwice
    /// A device sent a change again after a restart, and the backend applied it over another
    /// device's later change: the known issue left open, since a restarted app does not keep the
    /// idempotency keys of unanswered changes.
    case resentAfterRestartOverLaterChange
  }

  /// The rule broken.
  public let kind: Kind
  /// What was seen, and where.
  public let detail: String

  /// Whether it is the known issue the simulation reports without failing
  /// (``Kind/resentAfterRestartOverLaterChange``).
  public var isKnownIssue: Bool { kind == .resentAfterRestartOverLaterChange }

  /// The detail.
  public var description: String { detail }
}
