import Foundation
import JSON

/// One bad field of a payload: where it is, what it should be, and what was there instead.
public struct FieldError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong with the field.
  public enum Problem: String, Sendable, Hashable {
    /// The key was absent.
    case missing
    /// The value was `null` where a value is required.
    case null
    /// The value was of another JSON kind.
    case wrongType = "wrong type"
    /// The value had the right kind but not an allowed value.
    case invalidValue = "invalid value"
  }

  /// The field's key path from the payload's root, such as `members.others[2].id`.
  public let keyPath: String
  /// What was wrong.
  public let problem: Problem
  /// What the field should hold, such as `UUID string`.
  public let expected: String
  /// What it held instead, as JSON text, or `nothing` when absent.
  public let found: String

  /// Creates a field error.
  public init(keyPath: String, problem: Problem, expected: String, found: String) {
    self.keyPath = keyPath
    self.problem = problem
    self.expected = expected
    self.found = found
  }

  /// A sentence such as `'to': wrong type, expected UUID string, found 44`.
  public var description: String {
    "'\(keyPath)': \(problem.rawValue), expected \(expected), found \(found)"
  }
}

/// Why a payload could not be turned into a value.
public enum PayloadError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The bytes were not JSON, or were beyond the parser's limits.
  case invalidJSON(JSONParseError)
  /// The document's top level was not an object.
  case notAnObject(found: JSONKind)
  /// One or more fields were bad; every one of them is listed.
  case invalidFields([FieldError])

  /// Parses `data` as JSON, turning a parse failure into ``invalidJSON(_:)``.
  public static func decode(_ data: Data, limits: JSONParseLimits) throws(PayloadError) -> JSONValue
  {
    do {
      return try JSONParser.parse(data, limits: limits)
    } catch {
      throw .invalidJSON(error)
    }
  }

  /// The bad fields, empty for the other cases.
  public var fieldErrors: [FieldError] {
    if case .invalidFields(let errors) = self { errors } else { [] }
  }

  /// A readable summary naming every bad field.
  public var description: String {
    switch self {
    case .invalidJSON(let error): "payload is not valid JSON: \(error)"
    case .notAnObject(let kind): "payload must be a JSON object, found \(kind)"
    case .invalidFields(let errors):
      "payload has \(errors.count) bad \(errors.count == 1 ? "field" : "fields"):\n"
        + errors.map { "  - \($0)" }.joined(separator: "\n")
    }
  }
}
