/// Strict RFC 3986 percent-encoding: every UTF-8 byte outside the unreserved set becomes `%XX`.
///
/// The unreserved set is `A–Z a–z 0–9 - . _ ~`; everything else, including `+`, space, `/`, `?`,
/// `#`, `&`, `=` and every byte of a multi-byte character, is escaped with uppercase hex. Query
/// keys, query values and path segments all go through this one function.
public enum PercentEncoding {
  /// Returns `text` with every byte outside the unreserved set written as `%XX`.
  public static func encode(_ text: String) -> String {
    var contiguous = text
    return contiguous.withUTF8(encodeIfNeeded) ?? text
  }

  /// Whether `byte` passes through unescaped.
  @inline(__always)
  public static func isUnreserved(_ byte: UInt8) -> Bool {
    unreservedTable[Int(byte)]
  }

  /// Encodes the bytes, or returns `nil` when none needs escaping so the caller can reuse its input.
  private static func encodeIfNeeded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    var escapes = 0
    for byte in bytes where !unreservedTable[Int(byte)] {
      escapes += 1
    }
    if escapes == 0 { return nil }
    return String(unsafeUninitializedCapacity: bytes.count + 2 * escapes) { output in
      var index = 0
      for byte in bytes {
        if unreservedTable[Int(byte)] {
          output[index] = byte
          index += 1
        } else {
          output[index] = UInt8(ascii: "%")
          output[index + 1] = hexDigits[Int(byte >> 4)]
          output[index + 2] = hexDigits[Int(byte & 0x0F)]
          index += 3
        }
      }
      return index
    }
  }

  private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

  private static let unreservedTable: [Bool] = (0...255).map { value in
    let byte = UInt8(value)
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }
}
