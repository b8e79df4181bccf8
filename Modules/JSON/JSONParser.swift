import Foundation

/// Reads JSON text (RFC 8259) into a ``JSONValue``, within ``JSONParseLimits``.
///
/// It never traps: every malformed or oversized input ends in a ``JSONParseError``.
public enum JSONParser {
  /// Parses `data` as one JSON document.
  public static func parse(
    _ data: Data, limits: JSONParseLimits = .standard
  ) throws(JSONParseError) -> JSONValue {
    let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      return Result { () throws(JSONParseError) in try parse(bytes, limits: limits) }
    }
    return try result.get()
  }

  /// Parses the UTF-8 bytes as one JSON document.
  public static func parse(
    _ bytes: [UInt8], limits: JSONParseLimits = .standard
  ) throws(JSONParseError) -> JSONValue {
    let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
      Result { () throws(JSONParseError) in try parse(buffer, limits: limits) }
    }
    return try result.get()
  }

  /// Parses the text of `string` as one JSON document.
  public static func parse(
    _ string: String, limits: JSONParseLimits = .standard
  ) throws(JSONParseError) -> JSONValue {
    try parse(Array(string.utf8), limits: limits)
  }

  static func parse(
    _ buffer: UnsafeBufferPointer<UInt8>, limits: JSONParseLimits
  ) throws(JSONParseError) -> JSONValue {
    guard buffer.count <= limits.maximumDocumentSize else {
      throw .documentTooLarge(limit: limits.maximumDocumentSize, size: buffer.count)
    }
    var reader = Reader(bytes: buffer, limits: limits)
    reader.skipWhitespace()
    let value = try reader.readValue(depth: 0)
    reader.skipWhitespace()
    guard reader.index == buffer.count else {
      throw .malformed(offset: reader.index, reason: "unexpected text after the document")
    }
    return value
  }
}

private struct Reader {
  let bytes: UnsafeBufferPointer<UInt8>
  let limits: JSONParseLimits
  var index = 0

  init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONParseLimits) {
    self.bytes = bytes
    self.limits = limits
  }

  private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  mutating func readValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard let byte = current else {
      throw .malformed(offset: index, reason: "expected a value, found the end of the input")
    }
    switch byte {
    case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
    case UInt8(ascii: "["): return try readArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try readString())
    case UInt8(ascii: "t"):
      try readLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try readLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try readLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
    default:
      throw .malformed(offset: index, reason: "unexpected character '\(Self.printable(byte))'")
    }
  }

  private mutating func readLiteral(_ literal: StaticString) throws(JSONParseError) {
    let count = literal.utf8CodeUnitCount
    guard index + count <= bytes.count else {
      throw .malformed(offset: index, reason: "truncated literal")
    }
    let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
    for offset in 0..<count where bytes[index + offset] != expected[offset] {
      throw .malformed(offset: index + offset, reason: "invalid literal")
    }
    index += count
  }

  private mutating func readObject(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= limits.maximumDepth else {
      throw .tooDeep(limit: limits.maximumDepth, offset: index)
    }
    let start = index
    index += 1
    var members: [String: JSONValue] = [:]
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard current == UInt8(ascii: "\"") else {
        throw .malformed(offset: index, reason: "expected a string key")
      }
      let keyOffset = index
      let key = try readString()
      skipWhitespace()
      guard current == UInt8(ascii: ":") else {
        throw .malformed(offset: index, reason: "expected ':' after a key")
      }
      index += 1
      skipWhitespace()
      let value = try readValue(depth: depth)
      guard members.updateValue(value, forKey: key) == nil || limits.duplicateKeys == .keepLast
      else {
        throw .duplicateKey(key, offset: keyOffset)
      }
      guard members.count <= limits.maximumCollectionCount else {
        throw .collectionTooLarge(limit: limits.maximumCollectionCount, offset: start)
      }
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(members)
      default: throw .malformed(offset: index, reason: "expected ',' or '}' in an object")
      }
    }
  }

  private mutating func readArray(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= limits.maximumDepth else {
      throw .tooDeep(limit: limits.maximumDepth, offset: index)
    }
    let start = index
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try readValue(depth: depth))
      guard elements.count <= limits.maximumCollectionCount else {
        throw .collectionTooLarge(limit: limits.maximumCollectionCount, offset: start)
      }
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      default: throw .malformed(offset: index, reason: "expected ',' or ']' in an array")
      }
    }
  }

  private mutating func readString() throws(JSONParseError) -> String {
    let start = index
    index += 1
    let contentStart = index
    var hasEscapes = false
    // Every byte or-ed together: below 0x80, the string is ASCII and needs no UTF-8 validation.
    var allBits: UInt8 = 0
    while true {
      guard index < bytes.count else {
        throw .malformed(offset: start, reason: "unterminated string")
      }
      let byte = bytes[index]
      allBits |= byte
      if byte == UInt8(ascii: "\"") { break }
      if byte == UInt8(ascii: "\\") {
        hasEscapes = true
        index += 2
        continue
      }
      guard byte >= 0x20 else {
        throw .malformed(offset: index, reason: "control character in a string")
      }
      index += 1
    }
    let contentEnd = index
    index += 1
    guard contentEnd - contentStart <= limits.maximumStringLength else {
      throw .stringTooLong(limit: limits.maximumStringLength, offset: start)
    }
    let raw = UnsafeBufferPointer(rebasing: bytes[contentStart..<contentEnd])
    if !hasEscapes {
      // ASCII is valid UTF-8 as it is; the validating initialiser costs a generic call per string.
      if allBits < 0x80 { return String(decoding: raw, as: UTF8.self) }
      guard let text = String(validating: raw, as: UTF8.self) else {
        throw .invalidUTF8(offset: start)
      }
      return text
    }
    return try unescape(raw, offset: contentStart)
  }

  private func unescape(
    _ raw: UnsafeBufferPointer<UInt8>, offset: Int
  ) throws(JSONParseError) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(raw.count)
    var position = 0
    while position < raw.count {
      let byte = raw[position]
      guard byte == UInt8(ascii: "\\") else {
        output.append(byte)
        position += 1
        continue
      }
      guard position + 1 < raw.count else {
        throw .malformed(offset: offset + position, reason: "unterminated escape")
      }
      let escape = raw[position + 1]
      position += 2
      switch escape {
      case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
      case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
      case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
      case UInt8(ascii: "b"): output.append(0x08)
      case UInt8(ascii: "f"): output.append(0x0C)
      case UInt8(ascii: "n"): output.append(0x0A)
      case UInt8(ascii: "r"): output.append(0x0D)
      case UInt8(ascii: "t"): output.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hexQuad(raw, at: position, offset: offset)
        position += 4
        if (0xD800..<0xDC00).contains(scalar) {
          guard position + 6 <= raw.count, raw[position] == UInt8(ascii: "\\"),
            raw[position + 1] == UInt8(ascii: "u")
          else {
            throw .malformed(offset: offset + position, reason: "unpaired surrogate")
          }
          let low = try hexQuad(raw, at: position + 2, offset: offset)
          guard (0xDC00..<0xE000).contains(low) else {
            throw .malformed(offset: offset + position, reason: "unpaired surrogate")
          }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          position += 6
        }
        guard let unicode = Unicode.Scalar(scalar) else {
          throw .malformed(offset: offset + position, reason: "unpaired surrogate")
        }
        UTF8.encode(unicode) { output.append($0) }
      default:
        throw .malformed(offset: offset + position - 1, reason: "invalid escape")
      }
    }
    guard let text = String(validating: output, as: UTF8.self) else {
      throw .invalidUTF8(offset: offset)
    }
    return text
  }

  private func hexQuad(
    _ raw: UnsafeBufferPointer<UInt8>, at position: Int, offset: Int
  ) throws(JSONParseError) -> UInt32 {
    guard position + 4 <= raw.count else {
      throw .malformed(offset: offset + position, reason: "truncated \\u escape")
    }
    var value: UInt32 = 0
    for byte in raw[position..<position + 4] {
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw .malformed(offset: offset + position, reason: "invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  private mutating func readNumber() throws(JSONParseError) -> JSONValue {
    let start = index
    if current == UInt8(ascii: "-") { index += 1 }
    guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw .malformed(offset: index, reason: "expected a digit")
    }
    if first == UInt8(ascii: "0") {
      index += 1
    } else {
      skipDigits()
    }
    var isInteger = true
    if current == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard try requireDigit() else { throw .malformed(offset: index, reason: "expected a digit") }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
      guard try requireDigit() else { throw .malformed(offset: index, reason: "expected a digit") }
    }
    if isInteger, let integer = integerValue(from: start, to: index) { return .integer(integer) }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let double = Double(text), double.isFinite else {
      throw .malformed(offset: start, reason: "number out of range")
    }
    return .double(double)
  }

  /// The integer spelled by the already validated bytes `start..<end`, or `nil` if it overflows.
  private func integerValue(from start: Int, to end: Int) -> Int? {
    let negative = bytes[start] == UInt8(ascii: "-")
    var value = 0
    for byte in bytes[(negative ? start + 1 : start)..<end] {
      let digit = Int(byte - UInt8(ascii: "0"))
      let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
      let (next, overflowAdd) =
        negative
        ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
      if overflowShift || overflowAdd { return nil }
      value = next
    }
    return value
  }

  private mutating func requireDigit() throws(JSONParseError) -> Bool {
    guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
      return false
    }
    skipDigits()
    return true
  }

  private mutating func skipDigits() {
    while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
  }

  private static func printable(_ byte: UInt8) -> String {
    (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
  }
}
