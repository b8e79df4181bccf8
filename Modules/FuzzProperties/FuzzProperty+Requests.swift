import Foundation
import LoopbackServer

extension FuzzProperty {
  /// The loopback server's request parser never traps, reads the same requests however the
  /// bytes are split into reads, hands on only well-formed requests, and reads a request it
  /// wrote back out as the same request.
  public static let requests = FuzzProperty(name: "requests") { bytes in
    requestsRoundTrip(bytes, limits: fuzzLimits, parse: parseRequests, write: writeRequest)
  }

  /// Limits small enough that a fuzzer reaches the size refusals.
  static let fuzzLimits = ServerLimits(maxHeaderBytes: 512, maxBodyBytes: 256)

  /// Reads `bytes` with the loopback server's parser under `limits`, `readSize` bytes per read.
  public static func parseRequests(_ bytes: [UInt8], readSize: Int, limits: ServerLimits)
    -> RequestParser.Result
  {
    RequestParser(limits: limits).parse(bytes, readSize: readSize)
  }

  /// The request property with `parse` as the reader and `write` as the writer: a test gives
  /// it a broken one to prove that it can fail.
  public static func requestsRoundTrip(
    _ bytes: [UInt8], limits: ServerLimits,
    parse: ([UInt8], _ readSize: Int, ServerLimits) -> RequestParser.Result,
    write: (ServerRequest) -> [UInt8]
  ) -> String? {
    let whole = parse(bytes, .max, limits)
    // The input's length picks the size of the small reads, so the fuzzer can steer it.
    let readSize = 1 + bytes.count % 31
    let split = parse(bytes, readSize, limits)
    if split != whole {
      return "read whole, the bytes give \(whole); \(readSize) at a time, \(split)"
    }
    if let rejection = whole.rejection, let problem = malformed(rejection) {
      return problem
    }
    for request in whole.requests {
      if let problem = malformed(request, limits: limits) { return problem }
    }
    let expected = whole.requests.map(framedByLength)
    // Written out, a head may grow (a space after each colon, invalid UTF-8 replaced), so it
    // is read back without the header size limit.
    var unlimited = limits
    unlimited.maxHeaderBytes = .max
    let reread = parse(whole.requests.flatMap(write), .max, unlimited)
    if reread != RequestParser.Result(requests: expected) {
      return "read \(whole.requests), wrote them out and read back \(reread)"
    }
    return nil
  }

  /// The request as HTTP/1.1 text, its body framed by `Content-Length`.
  public static func writeRequest(_ request: ServerRequest) -> [UInt8] {
    let framed = framedByLength(request)
    var text = "\(framed.method) \(framed.target) \(framed.version)\r\n"
    for header in framed.headers { text += "\(header.name): \(header.value)\r\n" }
    text += "\r\n"
    return Array(text.utf8) + Array(framed.body)
  }

  /// `request` with its framing fields replaced by one `Content-Length`, as it reads once
  /// written out by `writeRequest`.
  static func framedByLength(_ request: ServerRequest) -> ServerRequest {
    var headers = request.headers.filter {
      !["content-length", "transfer-encoding"].contains($0.name.lowercased())
    }
    if !request.body.isEmpty {
      headers.append(HeaderField("Content-Length", "\(request.body.count)"))
    }
    return ServerRequest(
      method: request.method, target: request.target, version: request.version,
      headers: headers, body: request.body)
  }

  /// Why `request` is not one the server may hand to its handler, or `nil` if it is.
  static func malformed(_ request: ServerRequest, limits: ServerLimits) -> String? {
    if !limits.methods.contains(request.method) {
      return "\(request) has a method the server does not serve"
    }
    if !request.target.hasPrefix("/") || !request.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    {
      return "\(request) has a target that is not a printable path"
    }
    for header in request.headers {
      if header.name.isEmpty || !header.name.utf8.allSatisfy(isTokenByte) {
        return "\(request) has a header name that is not a token: \(header.name.debugDescription)"
      }
      let value = Array(header.value.utf8)
      if value.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) {
        return "\(request) has a header value with a control character: \(header)"
      }
      if let first = value.first, let last = value.last,
        first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
      {
        return
          "\(request) has a header value with whitespace around it: \(header.value.debugDescription)"
      }
    }
    if request.body.count > limits.maxBodyBytes {
      return "\(request) has a body of \(request.body.count) bytes, over the limit"
    }
    return nil
  }

  /// Why `rejection` is not an answer the server may give, or `nil` if it is.
  static func malformed(_ rejection: Rejection) -> String? {
    guard [400, 413, 431, 501, 505].contains(rejection.status), !rejection.message.isEmpty else {
      return "the refusal \(rejection) is not one the server gives"
    }
    return nil
  }

  /// The bytes RFC 9110's `tchar` allows besides letters and digits.
  static let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)

  /// Whether `byte` may appear in a method or a header name (RFC 9110's `tchar`).
  static func isTokenByte(_ byte: UInt8) -> Bool {
    (byte < 0x80 && Character(Unicode.Scalar(byte)).isLetter) || (0x30...0x39).contains(byte)
      || tokenPunctuation.contains(byte)
  }
}
