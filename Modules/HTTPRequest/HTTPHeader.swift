/// One request header; names are compared as written, so use the canonical spelling.
public struct HTTPHeader: Sendable, Hashable {
  /// The header's name, an RFC 9110 token such as `Accept`.
  public var name: String
  /// The header's value, without line breaks.
  public var value: String

  /// Creates a header; it is checked when the request is built.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  /// Throws if the name is not a token or the value could inject another header.
  public func validate() throws(HTTPRequestError) {
    guard !name.isEmpty, Self.allBytes(of: name, satisfy: Self.isTokenByte) else {
      throw .invalidHeaderName(name)
    }
    guard Self.allBytes(of: value, satisfy: { $0 != 0x0A && $0 != 0x0D && $0 != 0x00 }) else {
      throw .invalidHeaderValue(name: name)
    }
  }

  /// Whether every UTF-8 byte of `text` satisfies `rule`, read from contiguous storage where the
  /// string has it (every native string does), which costs a few instructions a byte.
  private static func allBytes(of text: String, satisfy rule: (UInt8) -> Bool) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(rule) }
      ?? text.utf8.allSatisfy(rule)
  }

  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"),
      UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
      UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"),
      UInt8(ascii: "~"):
      true
    default:
      false
    }
  }
}
