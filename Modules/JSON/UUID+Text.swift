import Foundation

extension UUID {
  /// The id as the backend writes it: 36 lowercase characters, `8-4-4-4-12`.
  ///
  /// It is written by hand because `uuidString` goes through `printf` on Linux, which showed up
  /// at several per cent of an end-to-end sync profile.
  public var lowercasedText: String {
    withUnsafeBytes(of: uuid) { bytes in
      String(unsafeUninitializedCapacity: 36) { buffer in
        var position = 0
        for index in 0..<16 {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            buffer[position] = UInt8(ascii: "-")
            position += 1
          }
          buffer[position] = Self.hexDigit(bytes[index] >> 4)
          buffer[position + 1] = Self.hexDigit(bytes[index] & 0x0F)
          position += 2
        }
        return position
      }
    }
  }

  /// Reads an id written `8-4-4-4-12` in hexadecimal digits of either case.
  ///
  /// Anything else gives `nil`. Unlike `UUID(uuidString:)` on Linux, it does not go through
  /// `scanf`, which dominated the parsing benchmark.
  public init?(text: String) {
    var text = text
    let parsed = text.withUTF8 { characters -> uuid_t? in
      guard characters.count == 36 else { return nil }
      var result: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      let valid = withUnsafeMutableBytes(of: &result) { bytes -> Bool in
        var input = 0
        var output = 0
        while input < 36 {
          if input == 8 || input == 13 || input == 18 || input == 23 {
            guard characters[input] == UInt8(ascii: "-") else { return false }
            input += 1
            continue
          }
          guard let high = Self.hexValue(characters[input]),
            let low = Self.hexValue(characters[input + 1])
          else { return false }
          bytes[output] = high << 4 | low
          output += 1
          input += 2
        }
        return true
      }
      return valid ? result : nil
    }
    guard let parsed else { return nil }
    self.init(uuid: parsed)
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
  }

  private static func hexValue(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
