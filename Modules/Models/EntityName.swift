/// The name of an entity, such as `User`: how messages, errors and stores refer to it.
///
/// Each entity declares its own name beside its type (`EntityName.user` in `User.swift`), so a new
/// entity needs no change here. Names order alphabetically.
public struct EntityName: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The name as written, such as `User`.
  public let rawValue: String

  /// Creates the name `rawValue`.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Creates the name written as a literal.
  public init(stringLiteral value: String) {
    self.rawValue = value
  }

  /// The name as written.
  public var description: String { rawValue }

  /// Orders names alphabetically.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
