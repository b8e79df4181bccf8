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
  ///
  /// It works on bytes, not characters: in a `String` a combining mark joins the character
  /// before it, and would hide a colon or a space from a search by character.
  static func parse(_ bytes: some Collection<UInt8>, methods: Set<String>) -> Result<
    RequestHead, Rejection
  > {
    let bytes = Array(bytes)
    guard !bytes.contains(0) else {
      return .failure(Rejection(400, "the request holds a NUL byte"))
    }
    let lines = splitLines(bytes)
    if let stray = lines.first(where: { $0.contains(cr) || $0.contains(lf) }) {
      return .failure(Rejection(400, "a line ends without CRLF: \(text(stray.prefix(40)))"))
    }
    let parts = lines[0].split(separator: space, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts.contains(where: \.isEmpty) else {
      return .failure(Rejection(400, "the request line is not `METHOD target HTTP/1.1`"))
    }
    guard parts[0].allSatisfy(isTokenByte) else {
      return .failure(Rejection(400, "the method is not a token"))
    }
    let method = text(parts[0])
    guard let version = HTTPVersion(rawValue: text(parts[2])) else {
      if parts[2].starts(with: "HTTP/".utf8) {
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

  private static let cr = UInt8(ascii: "\r")
  private static let lf = UInt8(ascii: "\n")
  private static let space = UInt8(ascii: " ")
  private static let tab = UInt8(ascii: "\t")

  /// The lines of `bytes`, split at each CRLF; there is always at least one.
  private static func splitLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var lineStart = 0
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == cr && bytes[index + 1] == lf {
        lines.append(bytes[lineStart..<index])
        index += 2
        lineStart = index
      } else {
        index += 1
      }
    }
    lines.append(bytes[lineStart...])
    return lines
  }

  /// `bytes` as text, any invalid UTF-8 replaced.
  private static func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  /// The path and query of `target`: as sent for a path, or taken from an absolute URL.
  private static func originForm(_ target: ArraySlice<UInt8>) -> String? {
    guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
    let target = text(target)
    if target.hasPrefix("/") { return target }
    for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
      let rest = target.dropFirst(scheme.count)
      guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
      let path = rest[slash...]
      return path.hasPrefix("/") ? String(path) : "/" + path
    }
    return nil
  }

  /// One header line as a field, or why it is refused.
  private static func field(_ line: ArraySlice<UInt8>) -> Result<HeaderField, Rejection> {
    if line.first == space || line.first == tab {
      return .failure(Rejection(400, "a header line is folded onto the one before"))
    }
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
      return .failure(Rejection(400, "a header line has no colon: \(text(line.prefix(40)))"))
    }
    let name = line[..<colon]
    guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
      return .failure(Rejection(400, "a header name is not a token: \(text(name.prefix(40)))"))
    }
    var value = line[line.index(after: colon)...]
    while let first = value.first, first == space || first == tab { value = value.dropFirst() }
    while let last = value.last, last == space || last == tab { value = value.dropLast() }
    guard value.allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
      return .failure(Rejection(400, "the value of \(text(name)) holds a control character"))
    }
    return .success(HeaderField(text(name), text(value)))
  }

  /// Whether `byte` may appear in a method or a header name (RFC 9110's `tchar`).
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
      UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
      UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
      true
    default: false
    }
  }
}
