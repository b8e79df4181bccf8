/// The request line and header fields of one request, checked before the body is read.
struct RequestHead: Sendable, Hashable {
  let method: String
  let target: String
  let version: HTTPVersion
  let headers: [HeaderField]

  /// The value of the first field called `name`, compared without case.
  func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name }?.value
  }

  /// Every value of the fields called `name`.
  func headers(_ name: String) -> [String] {
    headers.filter { $0.name.lowercased() == name }.map(\.value)
  }

  /// Reads the head from `bytes` (without the blank line that ends it), or says which answer
  /// refuses it.
  static func parse(_ bytes: some Collection<UInt8>, methods: Set<String>) -> Result<
    RequestHead, Rejection
  > {
    guard !bytes.contains(where: { $0 == 0 }) else {
      return .failure(Rejection(400, "the request holds a NUL byte"))
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
    guard let requestLine = lines.first else {
      return .failure(Rejection(400, "the request line is missing"))
    }
    if let stray = lines.first(where: { $0.contains("\n") || $0.contains("\r") }) {
      return .failure(Rejection(400, "a line ends without CRLF: \(stray.prefix(40))"))
    }
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts.contains(where: \.isEmpty) else {
      return .failure(Rejection(400, "the request line is not `METHOD target HTTP/1.1`"))
    }
    let method = String(parts[0])
    guard method.utf8.allSatisfy(isTokenByte) else {
      return .failure(Rejection(400, "the method is not a token"))
    }
    guard let version = HTTPVersion(rawValue: String(parts[2])) else {
      if parts[2].hasPrefix("HTTP/") {
        return .failure(Rejection(505, "only HTTP/1.0 and HTTP/1.1 are served"))
      }
      return .failure(Rejection(400, "the request line does not end with an HTTP version"))
    }
    guard let target = originForm(parts[1]) else {
      return .failure(Rejection(400, "the target is not a path such as /self"))
    }
    var headers: [HeaderField] = []
    for line in lines.dropFirst() {
      switch field(line) {
      case .success(let header): headers.append(header)
      case .failure(let rejection): return .failure(rejection)
      }
    }
    let head = RequestHead(method: method, target: target, version: version, headers: headers)
    if version == .http11 && head.header("host") == nil {
      return .failure(Rejection(400, "an HTTP/1.1 request needs a Host header"))
    }
    guard methods.contains(method) else {
      return .failure(Rejection(501, "the method \(method) is not served"))
    }
    return .success(head)
  }

  /// The path and query of `target`: as sent for a path, or taken from an absolute URL.
  private static func originForm(_ target: Substring) -> String? {
    guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
    if target.hasPrefix("/") { return String(target) }
    for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
      let rest = target.dropFirst(scheme.count)
      guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
      let path = rest[slash...]
      return path.hasPrefix("/") ? String(path) : "/" + path
    }
    return nil
  }

  /// One header line as a field, or why it is refused.
  private static func field(_ line: Substring) -> Result<HeaderField, Rejection> {
    if line.first == " " || line.first == "\t" {
      return .failure(Rejection(400, "a header line is folded onto the one before"))
    }
    guard let colon = line.firstIndex(of: ":") else {
      return .failure(Rejection(400, "a header line has no colon: \(line.prefix(40))"))
    }
    let name = line[..<colon]
    guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
      return .failure(Rejection(400, "a header name is not a token: \(name.prefix(40))"))
    }
    let value = line[line.index(after: colon)...].trimming { $0 == " " || $0 == "\t" }
    guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
      return .failure(Rejection(400, "the value of \(name) holds a control character"))
    }
    return .success(HeaderField(String(name), String(value)))
  }

  /// Whether `byte` may appear in a method or a header name (RFC 9110's `tchar`).
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }
}

/// An answer the server gives on its own, refusing a request it cannot serve.
struct Rejection: Error, Sendable, Hashable {
  let status: Int
  let message: String

  init(_ status: Int, _ message: String) {
    self.status = status
    self.message = message
  }
}

extension Substring {
  /// The substring without the leading and trailing characters that match `predicate`.
  fileprivate func trimming(_ predicate: (Character) -> Bool) -> Substring {
    var result = self
    while let first = result.first, predicate(first) { result = result.dropFirst() }
    while let last = result.last, predicate(last) { result = result.dropLast() }
    return result
  }
}
