import Foundation
import JSON
import Seams
import TestSupport
import Testing

@Suite("JSONParser", .tags(.parsing), .timeBudget(.seconds(5)))
struct JSONParserTests {
  @Test(
    "It reads each kind of value",
    arguments: zip(
      [
        "null", "true", "false", "0", "-12", "1.5", "-0.25e2", "1E3", #""a\"b""#,
        #""\u00e9\ud83d\ude00""#,
        " [1, [2, []], {}] ", #"{"a": {"b": [null]}}"#, "9223372036854775808",
      ],
      [
        JSONValue.null, true, false, 0, -12, 1.5, -25.0, 1_000.0, "a\"b", "é😀", [1, [2, []], [:]],
        ["a": ["b": [nil]]], .double(9_223_372_036_854_775_808),
      ]))
  func readsValues(text: String, expected: JSONValue) throws {
    // when
    let value = try JSONParser.parse(text)

    // then
    #expect(value == expected)
  }

  @Test(
    "It decodes every escape", arguments: zip([#""\/\\\b\f\n\r\t""#], ["/\\\u{8}\u{C}\n\r\t"]))
  func decodesEscapes(text: String, expected: String) throws {
    // when
    let value = try JSONParser.parse(text)

    // then
    #expect(value == .string(expected))
  }

  @Test(
    "It rejects malformed text with the byte where reading stopped", .tags(.robustness),
    arguments: zip(
      [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"abc", "[1] 2", "{'a': 1}",
        "\"\\x\"",
        "\"\u{1}\"", "+1", "1e",
      ],
      [0, 1, 3, 5, 1, 2, 1, 0, 0, 4, 1, 2, 1, 0, 2]))
  func rejectsMalformed(text: String, offset: Int) {
    // when
    let result = Result { () throws(JSONParseError) in try JSONParser.parse(text) }

    // then
    guard case .failure(.malformed(let actual, _)) = result else {
      Issue.record("expected malformed at \(offset), got \(result)")
      return
    }
    #expect(actual == offset)
  }

  @Test("It rejects nesting deeper than the limit", .tags(.robustness))
  func rejectsDeepNesting() {
    // given
    let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)

    // when
    let result = Result { () throws(JSONParseError) in try JSONParser.parse(text) }

    // then
    #expect(throws: JSONParseError.tooDeep(limit: 64, offset: 64)) { try result.get() }
  }

  @Test(
    "It enforces its documented size limits", .tags(.robustness),
    arguments: zip(
      [
        #""abcdefghijk""#, "[1,2,3,4,5,6,7,8,9,10,11]",
        #"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11}"#,
        String(repeating: " ", count: 200) + "1",
      ],
      [
        JSONParseError.stringTooLong(limit: 10, offset: 0),
        .collectionTooLarge(limit: 10, offset: 0),
        .collectionTooLarge(limit: 10, offset: 0), .documentTooLarge(limit: 100, size: 201),
      ]))
  func enforcesLimits(text: String, expected: JSONParseError) {
    // given
    let limits = JSONParseLimits(
      maximumStringLength: 10, maximumCollectionCount: 10, maximumDocumentSize: 100)

    // when
    let result = Result { () throws(JSONParseError) in try JSONParser.parse(text, limits: limits) }

    // then
    #expect(throws: expected) { try result.get() }
  }

  @Test("It rejects a key that appears twice, rather than silently keeping one")
  func rejectsDuplicateKeys() {
    // when
    let result = Result { () throws(JSONParseError) in try JSONParser.parse(#"{"a": 1, "a": 2}"#) }

    // then
    #expect(throws: JSONParseError.duplicateKey("a", offset: 9)) { try result.get() }
  }

  @Test("It rejects bytes that are not UTF-8", .tags(.robustness))
  func rejectsInvalidUTF8() {
    // given
    let bytes: [UInt8] = [0x22, 0xFF, 0xFE, 0x22]

    // when
    let result = Result { () throws(JSONParseError) in try JSONParser.parse(bytes) }

    // then
    #expect(throws: JSONParseError.invalidUTF8(offset: 0)) { try result.get() }
  }

  @Test(
    "It reads back what the serializer wrote", .tags(.generated),
    arguments: 1...5 as ClosedRange<UInt64>)
  func roundTripsSerializedValues(seed: UInt64) throws {
    // given
    var generator = SeededRandomNumberGenerator(seed: seed)
    let value = Self.randomValue(depth: 0, using: &generator)

    // when
    let reparsed = try JSONParser.parse(value.serialized())

    // then
    #expect(reparsed == value)
  }

  static func randomValue(depth: Int, using generator: inout SeededRandomNumberGenerator)
    -> JSONValue
  {
    switch Int.random(in: 0...(depth > 3 ? 4 : 6), using: &generator) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &generator))
    case 2: return .integer(Int.random(in: -1_000_000...1_000_000, using: &generator))
    case 3: return .double(Double(Int.random(in: -1_000...1_000, using: &generator)) / 8)
    case 4:
      let scalars = (0..<Int.random(in: 0...8, using: &generator)).compactMap { _ in
        Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &generator))
      }
      return .string(String(String.UnicodeScalarView(scalars)))
    case 5:
      return .array(
        (0..<Int.random(in: 0...4, using: &generator)).map { _ in
          randomValue(depth: depth + 1, using: &generator)
        })
    default:
      var members: [String: JSONValue] = [:]
      for index in 0..<Int.random(in: 0...4, using: &generator) {
        members["k\(index)"] = randomValue(depth: depth + 1, using: &generator)
      }
      return .object(members)
    }
  }
}

extension JSONParserTests {
  @Test(
    "It reads back 20,000 generated documents exactly", .tags(.slow, .generated),
    .onlyWhenSlowTestsEnabled)
  func manyGeneratedDocumentsRoundTrip() throws {
    // given
    var generator = SeededRandomNumberGenerator(seed: 2_026)
    let values = (0..<20_000).map { _ in Self.randomValue(depth: 0, using: &generator) }

    // when
    let reparsed = try values.map { try JSONParser.parse($0.serialized()) }

    // then
    #expect(reparsed == values)
  }
}
