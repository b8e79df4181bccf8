import Foundation
import JSON

/// The position of a change in the server's order: each change the server applies gets a
/// version greater than every change it applied before.
///
/// Notifications carry the version of the change they report, and the answer to a request that
/// changes something carries the version its change produced (``header``), so a client tells
/// which of two changes the server applied last by comparing their versions.
public struct ServerVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The version as the backend writes it: a whole number, 0 or more.
  public let rawValue: Int

  /// Creates the version `rawValue`; `nil` for a negative number.
  public init?(_ rawValue: Int) {
    guard rawValue >= 0 else { return nil }
    self.rawValue = rawValue
  }

  fileprivate init(checked rawValue: Int) { self.rawValue = rawValue }

  /// The version of a server that has applied no change yet.
  public static let zero = ServerVersion(checked: 0)

  /// The version of the change a server applies after this one.
  public var next: ServerVersion { ServerVersion(checked: rawValue + 1) }

  /// The HTTP header in which the backend answers the version a request's change produced.
  public static let header = "Courier-Version"

  /// Reads a header value: a whole number of decimal digits, 0 or more; `nil` otherwise.
  public init?(header value: String) {
    let digits = value.trimmingCharacters(in: .whitespaces)
    guard !digits.isEmpty,
      digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      let number = Int(digits)
    else { return nil }
    self.rawValue = number
  }

  /// Orders versions as the server applied their changes.
  public static func < (lhs: ServerVersion, rhs: ServerVersion) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// Reads as `v12`.
  public var description: String { "v\(rawValue)" }

  /// The version as JSON.
  public var jsonValue: JSONValue { .integer(rawValue) }
}

extension ObjectReader {
  /// An optional server version: absent or `null` give `.some(nil)`; a whole number below 0 or
  /// another kind of value is recorded and gives `nil`.
  public mutating func optionalVersion(_ key: String) -> ServerVersion?? {
    switch object[key] {
    case .none, .null?: return .some(nil)
    case .integer(let number)? where number >= 0: return .some(ServerVersion(checked: number))
    case .integer?:
      record(key, .invalidValue, expected: "version of 0 or more", found: object[key] ?? .null)
      return nil
    case let value?:
      record(key, .wrongType, expected: "integer or null", found: value)
      return nil
    }
  }
}
