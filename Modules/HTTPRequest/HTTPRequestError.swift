/// Why a request could not be built: each case names the rule that the input broke.
public enum HTTPRequestError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The method never carries a body (GET, HEAD) but one was given.
  case bodyNotAllowed(HTTPMethod)
  /// The method always carries a body (PUT, PATCH) but none was given.
  case bodyRequired(HTTPMethod)
  /// A path segment was empty, `.` or `..`, which would change which resource the path names.
  case invalidPathSegment(String)
  /// A path literal did not start with `/`.
  case pathNotAbsolute(String)
  /// A header name was empty or had characters outside the RFC 9110 token set.
  case invalidHeaderName(String)
  /// A header value held a line break or a NUL, which would let it inject headers.
  case invalidHeaderValue(name: String)
  /// A raw body's content type was empty or held a line break.
  case invalidContentType(String)
  /// The base URL could not be combined with the request's path.
  case invalidBaseURL(String)

  /// A sentence naming the rule and the offending input.
  public var description: String {
    switch self {
    case .bodyNotAllowed(let method):
      "\(method) requests must not carry a body"
    case .bodyRequired(let method):
      "\(method) requests must carry a body"
    case .invalidPathSegment(let segment):
      "path segment '\(segment)' is not allowed: segments may not be empty, '.' or '..'"
    case .pathNotAbsolute(let path):
      "path '\(path)' must start with '/'"
    case .invalidHeaderName(let name):
      "header name '\(name)' is not an RFC 9110 token"
    case .invalidHeaderValue(let name):
      "value of header '\(name)' contains a line break or NUL"
    case .invalidContentType(let contentType):
      "content type '\(contentType)' is empty or contains a line break"
    case .invalidBaseURL(let url):
      "base URL '\(url)' cannot be combined with a request path"
    }
  }
}
