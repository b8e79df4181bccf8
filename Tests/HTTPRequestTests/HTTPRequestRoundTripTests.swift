import Foundation
import HTTPRequest
import Seams
import TestSupport
import Testing

extension HTTPRequestTests {
  /// Kinds of generated query that the round trip is checked over.
  enum QueryShape: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case allASCII = "every ASCII character"
    case randomUnicode = "random Unicode scalars"
    case emptyParts = "empty names and values"
    case repeatedKeys = "repeated keys"

    var testDescription: String { rawValue }

    func makeQuery(using generator: inout SeededRandomNumberGenerator) -> [QueryItem] {
      (0..<12).map { index in
        switch self {
        case .allASCII:
          QueryItem(Self.ascii(using: &generator), Self.ascii(using: &generator))
        case .randomUnicode:
          QueryItem(Self.unicode(using: &generator), Self.unicode(using: &generator))
        case .emptyParts:
          index.isMultiple(of: 2)
            ? QueryItem("", Self.ascii(using: &generator))
            : QueryItem(Self.ascii(using: &generator), "")
        case .repeatedKeys:
          QueryItem(["id", "q", "id"][index % 3], Self.unicode(using: &generator))
        }
      }
    }

    private static func ascii(using generator: inout SeededRandomNumberGenerator) -> String {
      let length = Int.random(in: 0...24, using: &generator)
      let scalars = (0..<length).map { _ in
        Unicode.Scalar(UInt8.random(in: 0...0x7F, using: &generator))
      }
      return String(String.UnicodeScalarView(scalars))
    }

    private static func unicode(using generator: inout SeededRandomNumberGenerator) -> String {
      let length = Int.random(in: 0...12, using: &generator)
      var scalars = String.UnicodeScalarView()
      while scalars.count < length {
        if let scalar = Unicode.Scalar(UInt32.random(in: 0...0x10_FFFF, using: &generator)) {
          scalars.append(scalar)
        }
      }
      return String(scalars)
    }
  }

  @Suite("Round trip through URLComponents", .tags(.encoding, .generated))
  struct RoundTripTests {
    @Test(
      "It decodes back to exactly the original items, in order",
      arguments: QueryShape.allCases, 1...5 as ClosedRange<UInt64>
    )
    func queryRoundTrips(shape: QueryShape, seed: UInt64) throws {
      // given
      var generator = SeededRandomNumberGenerator(seed: seed)
      let items = shape.makeQuery(using: &generator)
      let request = try HTTPRequest(.get, "/search", query: items)

      // when
      let components = URLComponents(string: "https://courier.test" + request.encodedPathAndQuery)

      // then
      let decoded = try #require(components?.queryItems)
      #expect(decoded.map(\.name) == items.map(\.name))
      #expect(decoded.map { $0.value ?? "<nil>" } == items.map(\.value))
    }

    @Test("It decodes an encoded path segment back to the original value", arguments: 1...5)
    func pathSegmentRoundTrips(seed: UInt64) throws {
      // given
      var generator = SeededRandomNumberGenerator(seed: seed)
      let value = QueryShape.allASCII.makeQuery(using: &generator).map(\.value).joined() + "x"
      let request = try HTTPRequest(.get, "/users/\(value)")

      // when
      let components = URLComponents(string: "https://courier.test" + request.encodedPathAndQuery)

      // then
      #expect(components?.path == "/users/" + value)
    }
  }
}
