import Foundation
import JSON
import ParsingCore

/// The body of every error answer: `{"code": 404, "label": "not-found", "message": "…"}`.
public struct APIError: PayloadConvertible, Error, Hashable, CustomStringConvertible {
  /// The HTTP status, repeated.
  public var code: Int
  /// What went wrong, for code to switch on.
  public var label: ErrorLabel
  /// What went wrong, for people.
  public var message: String

  /// Creates an error answer.
  public init(code: Int, label: ErrorLabel, message: String) {
    self.code = code
    self.label = label
    self.message = message
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> APIError? {
    let code = reader.integer("code")
    let label = reader.string("label")
    let message = reader.string("message")
    guard let code, let label, let message else { return nil }
    return APIError(code: code, label: ErrorLabel(rawValue: label), message: message)
  }

  /// The error as the backend writes it.
  public var jsonValue: JSONValue {
    ["code": .integer(code), "label": .string(label.rawValue), "message": .string(message)]
  }

  /// Reads as `404 not-found: user 3f… does not exist`.
  public var description: String { "\(code) \(label): \(message)" }
}

/// The backend's name for an error, such as `not-found`; labels this client does not know are
/// kept as they came.
public struct ErrorLabel: RawRepresentable, Sendable, Hashable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The label as the backend writes it.
  public let rawValue: String

  /// Creates the label `rawValue`.
  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Creates the label written as a literal.
  public init(stringLiteral value: String) {
    self.rawValue = value
  }

  /// The label as written.
  public var description: String { rawValue }

  /// A request no endpoint matched.
  public static let noEndpoint: ErrorLabel = "no-endpoint"
  /// An object the request names does not exist.
  public static let notFound: ErrorLabel = "not-found"
  /// The body or the query is not what the endpoint takes.
  public static let badRequest: ErrorLabel = "bad-request"
  /// A page size outside 1…500.
  public static let invalidSize: ErrorLabel = "invalid-size"
  /// No self user is set up.
  public static let noSelf: ErrorLabel = "no-self"
  /// The self user may not act on this conversation or message.
  public static let accessDenied: ErrorLabel = "access-denied"
  /// A connection may not move to the status asked for.
  public static let badConnectionUpdate: ErrorLabel = "bad-conn-update"
  /// Another user already made a conversation with this id.
  public static let idTaken: ErrorLabel = "id-taken"
  /// The bearer token is none the backend handed out (401).
  public static let invalidToken: ErrorLabel = "invalid-token"
  /// No user signs in with the handle given (403).
  public static let invalidCredentials: ErrorLabel = "invalid-credentials"
}
