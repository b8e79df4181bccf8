import Foundation
import JSON

/// What a request carries after its headers: a JSON document or raw bytes with their type.
public enum HTTPBody: Sendable, Hashable {
  /// A JSON document, sent as `application/json`.
  case json(JSONValue)
  /// Raw bytes sent with the given content type.
  case raw(Data, contentType: String)

  /// The `Content-Type` header value for this body.
  public var contentType: String {
    switch self {
    case .json: "application/json"
    case .raw(_, let contentType): contentType
    }
  }

  /// The bytes that go on the wire.
  public var data: Data {
    switch self {
    case .json(let value): Data(value.serialized())
    case .raw(let data, _): data
    }
  }
}
