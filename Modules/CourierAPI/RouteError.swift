import ParsingCore

/// Why an incoming request is not a call of the API; the fake backend answers each with the
/// status the real backend would.
public enum RouteError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No route has this method and path (404 `no-endpoint`).
  case noRoute(method: String, path: String)
  /// The body is not the JSON the route takes; names every bad field (400 `bad-request`).
  case invalidBody(Route, PayloadError)
  /// A query item is missing or unreadable (400 `bad-request`).
  case invalidQuery(Route, name: String, expected: String, found: String?)
  /// A page size outside 1…500 (400 `invalid-size`).
  case invalidSize(Route, found: String)
  /// A path segment that should be an id is not one (404 `not-found`).
  case invalidPathParameter(Route, name: String, found: String)

  /// The route the request was meant for, or `nil` when no route has its method and path.
  public var route: Route? {
    switch self {
    case .noRoute: nil
    case .invalidBody(let route, _), .invalidQuery(let route, _, _, _), .invalidSize(let route, _),
      .invalidPathParameter(let route, _, _):
      route
    }
  }

  /// Says what was wrong, naming the field.
  public var description: String {
    switch self {
    case .noRoute(let method, let path): "no endpoint for \(method) \(path)"
    case .invalidBody(let route, let error): "\(route): \(error)"
    case .invalidQuery(let route, let name, let expected, let found):
      "\(route): query item '\(name)' must be \(expected), found \(found.map { "'\($0)'" } ?? "nothing")"
    case .invalidSize(let route, let found): "\(route): size must be 1…500, got \(found)"
    case .invalidPathParameter(let route, let name, let found):
      "\(route): '\(found)' is not a valid \(name)"
    }
  }
}
