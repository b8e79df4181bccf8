import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Transport

extension FakeBackend {
  /// Sends one request in-process and returns the response, or the transport error as a failure.
  func send(
    _ method: HTTPMethod, _ path: String, query: [QueryItem] = [], json: JSONValue? = nil
  ) async throws -> Result<TransportResponse, TransportError> {
    let request =
      if let json {
        try HTTPRequest(
          method, RequestPath(segments: path.split(separator: "/").map(String.init)), query: query,
          json: json)
      } else {
        try HTTPRequest(
          method, RequestPath(segments: path.split(separator: "/").map(String.init)), query: query)
      }
    do {
      return .success(try await transport.send(request))
    } catch {
      return .failure(error)
    }
  }

  /// Sends one request in-process and returns its status and JSON body (`nil` if none).
  func call(
    _ method: HTTPMethod, _ path: String, query: [QueryItem] = [], json: JSONValue? = nil
  ) async throws -> (status: Int, body: JSONValue?) {
    let response = try await send(method, path, query: query, json: json).get()
    return (response.status, try? response.json())
  }
}

extension UUID {
  /// The id as the backend writes it.
  var text: String { uuidString.lowercased() }
}
