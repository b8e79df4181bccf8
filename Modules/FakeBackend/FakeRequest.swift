import CourierAPI
import Foundation
import HTTPRequest
import JSON

/// A request as the fake server sees it: method, decoded path segments and query items, headers
/// and body, whichever way it arrived.
public struct FakeRequest: Sendable, Hashable, CustomStringConvertible {
  /// The method, such as `GET`.
  public let method: String
  /// The path's segments, percent-decoded.
  public let segments: [String]
  /// The query items in order, percent-decoded.
  public let query: [QueryItem]
  /// The headers, by lowercased name.
  public let headers: [String: String]
  /// The body, if any.
  public let body: Data?
  /// The call of the API the request makes, or why it is none: parsed once, on arrival.
  public let endpoint: Result<Endpoint, RouteError>

  /// Creates a request from its parts; header names are lowercased.
  public init(
    method: String, segments: [String], query: [QueryItem] = [], headers: [String: String] = [:],
    body: Data? = nil
  ) {
    self.method = method.uppercased()
    self.segments = segments
    self.query = query
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    self.body = body
    self.endpoint = Endpoint.parse(method: method, segments: segments, query: query, body: body)
  }

  /// Reads a request that arrived as a URL, decoding its path relative to `basePath` and its
  /// query exactly as the real backend would; `nil` if the URL cannot be read.
  public init?(
    method: String, url: URL, basePath: String = "", headers: [String: String], body: Data?
  ) {
    guard let (segments, query) = Self.decode(url, basePath: basePath) else { return nil }
    self.init(method: method, segments: segments, query: query, headers: headers, body: body)
  }

  /// Reads an `HTTPRequest` the way it would arrive over HTTP: from its path and query as the
  /// client encodes them for the wire, decoded as the server decodes a URL's.
  ///
  /// It reads the encoded text itself rather than through a Foundation `URL`, which cost more
  /// than routing and answering the request in process.
  public init(_ request: HTTPRequest) {
    let body: Data? =
      switch request.body {
      case .json(let value)?: Data(value.serialized())
      case .raw(let data, _)?: data
      case nil: nil
      }
    let headers = Dictionary(
      request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    let segments = request.path.encoded.split(separator: "/").map {
      Self.percentDecoded(String($0))
    }
    let query = request.query.map(\.encoded).map { item in
      let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      return QueryItem(
        Self.percentDecoded(String(parts[0])),
        parts.count > 1 ? Self.percentDecoded(String(parts[1])) : "")
    }
    self.init(
      method: request.method.rawValue, segments: segments, query: query, headers: headers,
      body: body)
  }

  private static func decode(_ url: URL, basePath: String) -> ([String], [QueryItem])? {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return nil
    }
    var encodedPath = components.percentEncodedPath
    if !basePath.isEmpty, encodedPath.hasPrefix(basePath) {
      encodedPath = String(encodedPath.dropFirst(basePath.count))
    }
    let segments = encodedPath.split(separator: "/", omittingEmptySubsequences: true).map {
      percentDecoded(String($0))
    }
    let query = (components.percentEncodedQueryItems ?? []).map {
      QueryItem(percentDecoded($0.name), $0.value.map(percentDecoded) ?? "")
    }
    return (segments, query)
  }

  /// `text` with its percent escapes decoded; as it is where it has none, or a malformed one.
  ///
  /// Most segments (ids, names of routes) have no escape, and Foundation's decoding of them
  /// was most of the cost of serving a request in process.
  private static func percentDecoded(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
    return text.removingPercentEncoding ?? text
  }

  /// The path, decoded, such as `/users/3f2a…`.
  public var path: String { "/" + segments.joined(separator: "/") }

  /// The first value of the query item `name`.
  public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

  /// The body as JSON, or `nil` if there is none or it is not JSON.
  public var json: JSONValue? { body.flatMap { try? JSONParser.parse($0) } }

  /// Reads as `GET /search/contacts?q=$&?@` with values decoded.
  public var description: String {
    let query = self.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    return "\(method) \(path)" + (query.isEmpty ? "" : "?\(query)")
  }
}
