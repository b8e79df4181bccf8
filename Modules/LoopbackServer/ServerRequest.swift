import Foundation

/// One HTTP request as the loopback server read it off the socket.
public struct ServerRequest: Sendable, Hashable, CustomStringConvertible {
  /// The method, such as `GET`; one the server serves (see ``ServerLimits/methods``).
  public let method: String
  /// The request target as sent: the path and the query, still percent-encoded.
  public let target: String
  /// The protocol version the client spoke.
  public let version: HTTPVersion
  /// The header fields in the order they came, names as sent.
  public let headers: [HeaderField]
  /// The body, after any chunked transfer coding was removed; empty if there was none.
  public let body: Data

  /// Creates a request, as the server does after reading one.
  public init(
    method: String, target: String, version: HTTPVersion = .http11, headers: [HeaderField] = [],
    body: Data = Data()
  ) {
    self.method = method
    self.target = target
    self.version = version
    self.headers = headers
    self.body = body
  }

  /// The value of the first header field called `name`, compared without case.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// The path part of the target, before any `?`.
  public var path: Substring {
    target.prefix { $0 != "?" }
  }

  /// Whether the client asked to keep the connection open after this request.
  public var keepsAlive: Bool {
    let connection = header("Connection")?.lowercased() ?? ""
    switch version {
    case .http11: return !connection.contains("close")
    case .http10: return connection.contains("keep-alive")
    }
  }

  /// `GET /self HTTP/1.1`.
  public var description: String { "\(method) \(target) \(version)" }
}

/// The HTTP versions the server speaks.
public enum HTTPVersion: String, Sendable, Hashable, CustomStringConvertible {
  /// HTTP/1.0: the connection closes after each answer unless the client asks otherwise.
  case http10 = "HTTP/1.0"
  /// HTTP/1.1: connections stay open unless either side says `Connection: close`.
  case http11 = "HTTP/1.1"

  /// The version as written on the request line.
  public var description: String { rawValue }
}

/// One header field: a name and its value, as they came.
public struct HeaderField: Sendable, Hashable, CustomStringConvertible {
  /// The field's name.
  public let name: String
  /// The field's value, without surrounding whitespace.
  public let value: String

  /// Creates a field.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  /// `Name: value`.
  public var description: String { "\(name): \(value)" }
}
