import Foundation
import JSON

/// What the backend answered: a status, headers and a body that is usually JSON.
public struct TransportResponse: Sendable, Equatable {
  /// The HTTP status code.
  public let status: Int
  /// The headers, by lowercased name.
  public let headers: [String: String]
  /// The raw body.
  public let body: Data

  /// Creates a response; header names are lowercased.
  public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    self.body = body
  }

  /// Creates a response with `json` as its body and a JSON content type.
  public init(status: Int, json: JSONValue, headers: [String: String] = [:]) {
    var headers = headers
    headers["Content-Type"] = "application/json"
    self.init(status: status, headers: headers, body: Data(json.serialized()))
  }

  /// The value of the header `name`, in any case.
  public func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// The body as JSON.
  ///
  /// - Throws: ``TransportError/malformedBody(status:reason:)`` if the body is not JSON.
  public func json() throws(TransportError) -> JSONValue {
    do {
      return try JSONParser.parse(body)
    } catch {
      throw .malformedBody(status: status, reason: "\(error)")
    }
  }

  /// What the status means for the caller.
  public var responseClass: ResponseClass { ResponseClass(status: status) }
}

/// What a response or a failure means for the caller: done, try again, give up, or too late.
public enum ResponseClass: String, Sendable, Hashable {
  /// 2xx: the backend did it.
  case success
  /// 408, 429, 5xx or a network failure: the same request may work later.
  case temporary
  /// Any other 4xx (and other statuses): the same request will fail again.
  case permanent
  /// 401, or no token to send: the backend does not know who asks, so no request will work
  /// until the app signs its user in again; it says nothing about the request itself.
  case unauthorized
  /// The request ran out of time before it got a response.
  case expired

  /// The class of an HTTP status.
  public init(status: Int) {
    switch status {
    case 200..<300: self = .success
    case 401: self = .unauthorized
    case 408, 429, 500..<600: self = .temporary
    default: self = .permanent
    }
  }
}
