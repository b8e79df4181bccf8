/// The HTTP methods Courier sends, with the body rule each one follows.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// Reads a resource; never carries a body.
  case get = "GET"
  /// Reads a resource's headers; never carries a body.
  case head = "HEAD"
  /// Creates a resource or triggers an action; a body is optional.
  case post = "POST"
  /// Replaces a resource; always carries a body.
  case put = "PUT"
  /// Changes part of a resource; always carries a body.
  case patch = "PATCH"
  /// Removes a resource; a body is optional.
  case delete = "DELETE"

  /// Whether a request with this method may, must or must not carry a body.
  public var bodyRule: BodyRule {
    switch self {
    case .get, .head: .forbidden
    case .put, .patch: .required
    case .post, .delete: .optional
    }
  }

  /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
  public var isIdempotent: Bool {
    self != .post && self != .patch
  }

  /// The method's name as it goes on the wire, such as `GET`.
  public var description: String { rawValue }

  /// Whether a method's requests carry a body.
  public enum BodyRule: String, Sendable, Hashable {
    /// The request must not carry a body.
    case forbidden
    /// The request must carry a body.
    case required
    /// The request may carry a body or not.
    case optional
  }
}
