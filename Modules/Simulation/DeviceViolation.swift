/// A rule a simulation of several devices found broken: which, and what was seen.
public struct DeviceViolation: Sendable, Hashable, CustomStringConvertible {
  /// The rule broken.
  public enum Kind: Sendable, Hashable {
    /// The world could not be set up.
    case setup
    /// A context of a device showed a name the server set before one it had shown already.
    case olderValueShown
    /// A device's notification cursor moved back in its user's stream.
    case cursorMovedBack
    /// At the end a device showed something other than what the backend holds, or had work
    /// left.
    case endStateDiffers
    /// The backend applied one change of one device twice.
    case appliedTwice
    /// A device sent a change again, and the backend applied it over another device's later
    /// change.
    case resentOverLaterChange
  }

  /// The rule broken.
  public let kind: Kind
  /// What was seen, and where.
  public let detail: String

  /// The detail.
  public var description: String { detail }
}
