import HTTPRequest
import TestSupport
import Testing

@Suite("PercentEncoding", .tags(.encoding), .timeBudget(.seconds(5)))
struct PercentEncodingTests {
  static let unreserved = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
  static let printableASCII = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
  static let reserved = printableASCII.filter { !unreserved.contains($0) }

  @Test("It leaves every unreserved character as it is", arguments: unreserved)
  func unreservedCharacterPassesThrough(character: Character) {
    // given
    let text = String(character)

    // when
    let encoded = PercentEncoding.encode(text)

    // then
    #expect(encoded == text)
  }

  @Test("It escapes every other printable ASCII character as %XX in uppercase", arguments: reserved)
  func reservedCharacterIsEscaped(character: Character) throws {
    // given
    let byte = try #require(character.asciiValue)

    // when
    let encoded = PercentEncoding.encode(String(character))

    // then
    let hex = String(byte, radix: 16, uppercase: true)
    #expect(encoded == "%" + (hex.count == 1 ? "0" + hex : hex))
  }

  @Test(
    "It escapes control characters",
    arguments: zip(["\u{0}", "\n", "\r", "\t", "\u{7F}"], ["%00", "%0A", "%0D", "%09", "%7F"])
  )
  func controlCharacterIsEscaped(text: String, expected: String) {
    // when
    let encoded = PercentEncoding.encode(text)

    // then
    #expect(encoded == expected)
  }

  @Test(
    "It escapes every byte of a multi-byte character",
    arguments: zip(
      ["é", "€", "日本", "😀", "👩‍💻"],
      [
        "%C3%A9", "%E2%82%AC", "%E6%97%A5%E6%9C%AC", "%F0%9F%98%80",
        "%F0%9F%91%A9%E2%80%8D%F0%9F%92%BB",
      ]
    )
  )
  func multiByteCharacterIsEscapedBytewise(text: String, expected: String) {
    // when
    let encoded = PercentEncoding.encode(text)

    // then
    #expect(encoded == expected)
  }

  @Test(
    "It writes space as %20 and plus as %2B, never the form encoding",
    arguments: zip(["a b", "a+b", " + "], ["a%20b", "a%2Bb", "%20%2B%20"])
  )
  func spaceAndPlusAreNotFormEncoded(text: String, expected: String) {
    // when
    let encoded = PercentEncoding.encode(text)

    // then
    #expect(encoded == expected)
  }

  @Test("It encodes the empty string as the empty string")
  func emptyStringStaysEmpty() {
    // when
    let encoded = PercentEncoding.encode("")

    // then
    #expect(encoded.isEmpty)
  }

  @Test("It encodes a string that is not contiguous UTF-8 the same way")
  func bridgedStringIsEncoded() {
    // given
    let text = String(String("a b/é".reversed()).reversed())

    // when
    let encoded = PercentEncoding.encode(text)

    // then
    #expect(encoded == "a%20b%2F%C3%A9")
  }
}
