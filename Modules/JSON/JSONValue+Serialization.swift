extension JSONValue {
  /// The UTF-8 JSON text of this value, with object keys sorted so equal values give equal bytes.
  ///
  /// Non-finite doubles have no JSON spelling and are written as `null`.
  public func serialized() -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(64)
    write(into: &output)
    return output
  }

  /// The JSON text of this value as a `String`.
  public var jsonText: String {
    String(decoding: serialized(), as: UTF8.self)
  }

  private func write(into output: inout [UInt8]) {
    switch self {
    case .null:
      output.append(contentsOf: "null".utf8)
    case .bool(let value):
      output.append(contentsOf: (value ? "true" : "false").utf8)
    case .integer(let value):
      output.append(contentsOf: String(value).utf8)
    case .double(let value):
      if value.isFinite {
        output.append(contentsOf: value.description.utf8)
      } else {
        output.append(contentsOf: "null".utf8)
      }
    case .string(let text):
      Self.writeString(text, into: &output)
    case .array(let elements):
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        element.write(into: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let members):
      output.append(UInt8(ascii: "{"))
      for (index, key) in members.keys.sorted().enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        Self.writeString(key, into: &output)
        output.append(UInt8(ascii: ":"))
        members[key, default: .null].write(into: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private static func writeString(_ text: String, into output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0x00..<0x20:
        output.append(contentsOf: Array("\\u00".utf8))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0x0F)])
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
