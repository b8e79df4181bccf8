import Foundation
import JSON
import TestSupport
import Testing

/// Courier's own JSON conformance cases: RFC 8259's grammar and the edge cases parsers are
/// known to disagree on, each with what `JSONParser` must do.
@Suite("JSON conformance", .tags(.parsing, .robustness), .timeBudget(.seconds(5)))
struct JSONConformanceTests {
  /// What the parser must do with one input.
  enum Verdict: Sendable, CustomStringConvertible {
    /// Read it as this value.
    case reads(JSONValue)
    /// Refuse it as malformed.
    case malformed
    /// Refuse it for a string that is not UTF-8.
    case invalidUTF8
    /// Refuse it for nesting deeper than the limit.
    case tooDeep
    /// Refuse it for a key named twice.
    case duplicateKey

    var description: String {
      switch self {
      case .reads(let value): "reads \(value)"
      case .malformed: "refused as malformed"
      case .invalidUTF8: "refused as not UTF-8"
      case .tooDeep: "refused as too deep"
      case .duplicateKey: "refused for a duplicate key"
      }
    }
  }

  /// One input and its verdict.
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let verdict: Verdict

    init(_ name: String, _ text: String, _ verdict: Verdict) {
      self.init(name, Array(text.utf8), verdict)
    }

    init(_ name: String, _ bytes: [UInt8], _ verdict: Verdict) {
      self.name = name
      self.bytes = bytes
      self.verdict = verdict
    }

    var testDescription: String { "\(name): \(verdict)" }
  }

  static let numbersCases: [Case] = [
    Case("zero", "0", .reads(.integer(0))),
    Case("minus zero, whose sign JSON integers do not keep", "-0", .reads(.integer(0))),
    Case("minus zero as a fraction keeps its sign", "-0.0", .reads(.double(-0.0))),
    Case("a negative integer", "-42", .reads(.integer(-42))),
    Case("the largest 64-bit integer", "9223372036854775807", .reads(.integer(Int.max))),
    Case("the smallest 64-bit integer", "-9223372036854775808", .reads(.integer(Int.min))),
    Case(
      "an integer beyond 64 bits becomes a double", "9223372036854775808",
      .reads(.double(9_223_372_036_854_775_808))),
    Case("a fraction", "3.25", .reads(.double(3.25))),
    Case("an exponent", "1e2", .reads(.double(100))),
    Case("a capital exponent with a sign", "1E+2", .reads(.double(100))),
    Case("a negative exponent", "25e-2", .reads(.double(0.25))),
    Case("a tiny value rounds to zero", "1e-400", .reads(.double(0))),
    Case("a huge value that no double holds", "1e400", .malformed),
    Case("a leading zero", "01", .malformed),
    Case("a leading zero in an array", "[00]", .malformed),
    Case("a leading plus", "+1", .malformed),
    Case("a leading point", ".5", .malformed),
    Case("a trailing point", "1.", .malformed),
    Case("an exponent without digits", "1e", .malformed),
    Case("an exponent with only a sign", "1e-", .malformed),
    Case("a minus alone", "-", .malformed),
    Case("hexadecimal", "0x10", .malformed),
    Case("infinity", "Infinity", .malformed),
    Case("not a number", "NaN", .malformed),
  ]

  static let stringsCases: [Case] = [
    Case("the empty string", #""""#, .reads(.string(""))),
    Case(
      "every short escape", #""\" \\ \/ \b \f \n \r \t""#,
      .reads(.string("\" \\ / \u{08} \u{0C} \n \r \t"))),
    Case("a \\u escape", #""\u00e9""#, .reads(.string("é"))),
    Case("a \\u escape in capitals", #""\u00C9""#, .reads(.string("É"))),
    Case("an escaped NUL", #""a\u0000b""#, .reads(.string("a\u{0}b"))),
    Case("a surrogate pair", #""\ud83d\ude00""#, .reads(.string("😀"))),
    Case("a lone high surrogate", #""\ud83d""#, .malformed),
    Case("a lone low surrogate", #""\ude00""#, .malformed),
    Case("a high surrogate followed by a letter", #""\ud83dx""#, .malformed),
    Case("two high surrogates", #""\ud83d\ud83d""#, .malformed),
    Case("raw UTF-8 of every length", "\"aé€😀\"", .reads(.string("aé€😀"))),
    Case("DEL needs no escape", "\"\u{7F}\"", .reads(.string("\u{7F}"))),
    Case("an unknown escape", #""\x41""#, .malformed),
    Case("a short \\u escape", #""\u12""#, .malformed),
    Case("a \\u escape that is not hexadecimal", #""\u12G4""#, .malformed),
    Case("an unterminated string", #""abc"#, .malformed),
    Case("a backslash at the end", #""abc\"#, .malformed),
    Case("a raw tab", "\"a\tb\"", .malformed),
    Case("a raw line feed", "\"a\nb\"", .malformed),
    Case("a raw NUL", [0x22, 0x00, 0x22], .malformed),
    Case("a lone continuation byte", [0x22, 0x80, 0x22], .invalidUTF8),
    Case("a truncated two-byte sequence", [0x22, 0xC3, 0x22], .invalidUTF8),
    Case("an overlong encoding of '/'", [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8),
    Case("an encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8),
    Case("a byte that UTF-8 never uses", [0x22, 0xFF, 0x22], .invalidUTF8),
    Case("single quotes", "'a'", .malformed),
  ]

  static let structureCases: [Case] = [
    Case("an empty object", "{}", .reads(.object([:]))),
    Case("an empty array", "[]", .reads(.array([]))),
    Case("an empty key", #"{"":1}"#, .reads(.object(["": .integer(1)]))),
    Case("literals", "[true,false,null]", .reads(.array([.bool(true), .bool(false), .null]))),
    Case("a scalar at the top", "true", .reads(.bool(true))),
    Case(
      "every whitespace RFC 8259 allows", " \t\r\n[ \t\r\n1 \t\r\n] \t\r\n",
      .reads(.array([.integer(1)]))),
    Case("a form feed as whitespace", "\u{0C}[]", .malformed),
    Case("a non-breaking space as whitespace", "\u{A0}[]", .malformed),
    Case("a byte order mark", [0xEF, 0xBB, 0xBF] + Array("[]".utf8), .malformed),
    Case("nothing", "", .malformed),
    Case("only whitespace", "  ", .malformed),
    Case("a trailing comma in an array", "[1,]", .malformed),
    Case("a trailing comma in an object", #"{"a":1,}"#, .malformed),
    Case("a leading comma", "[,1]", .malformed),
    Case("a missing comma", "[1 2]", .malformed),
    Case("a missing colon", #"{"a" 1}"#, .malformed),
    Case("a key that is not a string", "{a:1}", .malformed),
    Case("a number as a key", "{1:1}", .malformed),
    Case("an unclosed array", "[1", .malformed),
    Case("an unclosed object", #"{"a":1"#, .malformed),
    Case("a mismatched bracket", "[1}", .malformed),
    Case("trailing garbage", "[1]x", .malformed),
    Case("two documents", "1 2", .malformed),
    Case("a truncated literal", "tru", .malformed),
    Case("a literal in capitals", "True", .malformed),
    Case("a comment", "[1] // one", .malformed),
    Case("a key named twice", #"{"a":1,"a":2}"#, .duplicateKey),
    Case(
      "64 levels of nesting, the limit",
      String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
      .reads(
        (1..<64).reduce(JSONValue.array([])) { inner, _ in .array([inner]) })),
    Case(
      "65 levels of nesting", String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
      .tooDeep),
    Case(
      "100,000 levels of nesting, without exhausting the stack",
      String(repeating: "[", count: 100_000), .tooDeep),
  ]

  func expectVerdict(_ example: Case, limits: JSONParseLimits = .standard) {
    let result = Result { () throws(JSONParseError) in
      try JSONParser.parse(example.bytes, limits: limits)
    }
    switch (example.verdict, result) {
    case (.reads(let expected), .success(let value)):
      #expect(value == expected)
      if case .double(let double) = expected, double == 0, case .double(let read) = value {
        #expect(read.sign == double.sign, "the sign of zero")
      }
    case (.malformed, .failure(.malformed)), (.invalidUTF8, .failure(.invalidUTF8)),
      (.tooDeep, .failure(.tooDeep)), (.duplicateKey, .failure(.duplicateKey)):
      break
    default:
      Issue.record("\(example.name): expected it \(example.verdict), got \(result)")
    }
  }

  @Test("Numbers are read as RFC 8259 spells them, and nothing else is", arguments: numbersCases)
  func number(_ example: Case) {
    expectVerdict(example)
  }

  @Test("Strings take every escape and valid UTF-8, and refuse the rest", arguments: stringsCases)
  func string(_ example: Case) {
    expectVerdict(example)
  }

  @Test("Structure follows the grammar, within the documented limits", arguments: structureCases)
  func structure(_ example: Case) {
    expectVerdict(example)
  }

  @Test("A caller that must accept duplicate keys gets the last value for each")
  func duplicateKeysKeepLast() throws {
    // given
    let limits = JSONParseLimits(duplicateKeys: .keepLast)

    // when
    let value = try JSONParser.parse(#"{"a":1,"b":{"c":2,"c":3},"a":4}"#, limits: limits)

    // then
    #expect(value == ["a": 4, "b": ["c": 3]])
  }

  @Test(
    "Every value read writes back to text that reads as the same value",
    arguments: numbersCases + stringsCases + structureCases)
  func roundTrip(_ example: Case) throws {
    // given
    guard case .reads(let value) = example.verdict else { return }

    // when
    let written = value.serialized()
    let reread = try JSONParser.parse(written)

    // then
    #expect(reread == value)
  }

  @Test("A verdict the parser does not meet is reported, so a wrong table cannot pass")
  func checkCanFail() {
    // given
    let wrong = [
      Case("a number said to be malformed", "1", .malformed),
      Case("a string read as another", #""a""#, .reads(.string("b"))),
      Case("minus zero said to keep no sign", "-0.0", .reads(.double(0))),
    ]

    // when, then
    for example in wrong {
      withKnownIssue { expectVerdict(example) }
    }
  }
}
