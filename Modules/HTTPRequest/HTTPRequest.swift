import Foundation
import JSON

/// One request to the Courier backend: method, relative path, ordered query, headers and body.
///
/// Building a request checks every rule up front and throws ``HTTPRequestError`` naming the one
/// that was broken, so a value of this type is always sendable as it stands:
///
/// ```swift
/// let search = try HTTPRequest(.get, "/search", query: [QueryItem("q", "$&?@")])
/// search.encodedPathAndQuery  // "/search?q=%24%26%3F%40"
/// ```
public struct HTTPRequest: Sendable, Hashable, CustomStringConvertible {
  /// The method, which also decides whether a body is allowed.
  public let method: HTTPMethod
  /// The path relative to the backend's base URL.
  public let path: RequestPath
  /// The query items in the order they are sent; a name may repeat.
  public let query: [QueryItem]
  /// Extra headers in the order they are sent; `Content-Type` comes from the body.
  public let headers: [HTTPHeader]
  /// The body, if the method carries one.
  public let body: HTTPBody?

  /// Creates a request, throwing if the method's body rule, the path or a header is broken.
  public init(
    _ method: HTTPMethod,
    _ path: RequestPath,
    query: [QueryItem] = [],
    headers: [HTTPHeader] = [],
    body: HTTPBody? = nil
  ) throws(HTTPRequestError) {
    switch (method.bodyRule, body) {
    case (.forbidden, .some): throw .bodyNotAllowed(method)
    case (.required, .none): throw .bodyRequired(method)
    default: break
    }
    try path.validate()
    for header in headers { try header.validate() }
    if case .raw(_, let contentType) = body {
      guard !contentType.isEmpty, !contentType.contains(where: \.isNewline) else {
        throw .invalidContentType(contentType)
      }
    }
    self.init(checked: method, path, query: query, headers: headers, body: body)
  }

  /// This request with `header` sent after its other headers; only the new header is checked,
  /// as the rest of the request was checked when it was built.
  ///
  /// ```swift
  /// let keyed = try request.adding(HTTPHeader("Idempotency-Key", key))
  /// ```
  public func adding(_ header: HTTPHeader) throws(HTTPRequestError) -> HTTPRequest {
    try header.validate()
    return HTTPRequest(
      checked: method, path, query: query, headers: headers + [header], body: body)
  }

  /// A request from parts already checked.
  private init(
    checked method: HTTPMethod, _ path: RequestPath, query: [QueryItem], headers: [HTTPHeader],
    body: HTTPBody?
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }

  /// Creates a request whose body is the JSON `payload`.
  public init(
    _ method: HTTPMethod,
    _ path: RequestPath,
    query: [QueryItem] = [],
    headers: [HTTPHeader] = [],
    json payload: JSONValue
  ) throws(HTTPRequestError) {
    try self.init(method, path, query: query, headers: headers, body: .json(payload))
  }

  /// The encoded query without the leading `?`, or an empty string when there is none.
  public var encodedQuery: String {
    query.map(\.encoded).joined(separator: "&")
  }

  /// The encoded path followed by `?` and the encoded query when there is one.
  public var encodedPathAndQuery: String {
    query.isEmpty ? path.encoded : path.encoded + "?" + encodedQuery
  }

  /// The method and the encoded path and query, such as `GET /search?q=%24%26%3F%40`.
  public var description: String {
    "\(method) \(encodedPathAndQuery)"
  }
}
