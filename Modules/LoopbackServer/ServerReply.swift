import Foundation

/// What a handler wants done with a request: an answer, or one of the ways a connection can fail
/// a client on purpose.
public enum ServerReply: Sendable, Hashable {
  /// Send this answer.
  case respond(ServerResponse)
  /// Close the connection without answering, as a server that dies or a network that drops
  /// would: the client sees the connection lost.
  case closeWithoutAnswer
  /// Never answer: keep the connection open until the client gives up and closes it, or the
  /// server stops. The client sees its own timeout.
  case holdUntilClientLeaves
}

/// An answer the server writes back.
public struct ServerResponse: Sendable, Hashable {
  /// The status code.
  public let status: Int
  /// Header fields to send, besides `Content-Length` and `Connection`, which the server writes.
  public let headers: [HeaderField]
  /// The body.
  public let body: Data

  /// Creates an answer.
  public init(status: Int, headers: [HeaderField] = [], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A plain-text answer saying `message`, for the server's own refusals.
  static func refusal(_ status: Int, _ message: String) -> ServerResponse {
    ServerResponse(
      status: status, headers: [HeaderField("Content-Type", "text/plain; charset=utf-8")],
      body: Data((message + "\n").utf8))
  }

  /// The bytes of the answer to a request with `method`, closing the connection afterwards when
  /// `closing`: no body for `HEAD`, though its length is given.
  func serialized(method: String, closing: Bool) -> [UInt8] {
    var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
    for field in headers
    where !["content-length", "connection", "transfer-encoding"].contains(field.name.lowercased()) {
      head += "\(field.name): \(field.value)\r\n"
    }
    head += "Content-Length: \(body.count)\r\n"
    if closing { head += "Connection: close\r\n" }
    head += "\r\n"
    var bytes = Array(head.utf8)
    if method != "HEAD" { bytes.append(contentsOf: body) }
    return bytes
  }

  /// The reason phrase for `status`, for the status line.
  static func reason(for status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 201: "Created"
    case 204: "No Content"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 411: "Length Required"
    case 413: "Content Too Large"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 505: "HTTP Version Not Supported"
    default: status < 400 ? "OK" : "Error"
    }
  }
}
