import FakeBackend
import Foundation
import HTTPRequest
import TestSupport
import Testing

@Suite("FakeRequest", .tags(.transport))
struct FakeRequestTests {
  /// A URL as it arrives, and the path segments and query items the fake reads from it.
  struct Decoding: Sendable, CustomTestStringConvertible {
    let url: String
    let segments: [String]
    let query: [QueryItem]

    var testDescription: String { url }
  }

  static let decodings = [
    Decoding(url: "https://fake.invalid/users/ada", segments: ["users", "ada"], query: []),
    Decoding(
      url: "https://fake.invalid/users/a%2Fb%20c", segments: ["users", "a/b c"], query: []),
    Decoding(url: "https://fake.invalid/users/caf%C3%A9", segments: ["users", "café"], query: []),
    Decoding(url: "https://fake.invalid/users/50%25", segments: ["users", "50%"], query: []),
    Decoding(url: "https://fake.invalid/users/a%zz", segments: ["users", "a%zz"], query: []),
    Decoding(
      url: "https://fake.invalid/search/contacts?q=%24%26%3F&limit=5",
      segments: ["search", "contacts"], query: [QueryItem("q", "$&?"), QueryItem("limit", "5")]),
    Decoding(
      url: "https://fake.invalid/search/contacts?q=a+b", segments: ["search", "contacts"],
      query: [QueryItem("q", "a+b")]),
  ]

  @Test(
    "It percent-decodes path segments and query items, and keeps a malformed escape as sent",
    arguments: decodings)
  func decodes(_ decoding: Decoding) throws {
    // given
    let url = try #require(URL(string: decoding.url))

    // when
    let request = FakeRequest(method: "GET", url: url, headers: [:], body: nil)

    // then
    #expect(request?.segments == decoding.segments)
    #expect(request?.query == decoding.query)
  }

  /// A request as the client builds it, and the path segments and query items the fake reads
  /// from it once it is encoded for the wire.
  struct RoundTrip: Sendable, CustomTestStringConvertible {
    let segments: [String]
    let query: [QueryItem]

    var testDescription: String { "/" + segments.joined(separator: "/") }
  }

  static let roundTrips = [
    RoundTrip(segments: ["users", "ada"], query: []),
    RoundTrip(segments: ["users", "a/b c", "café", "50%", "a%zz"], query: []),
    RoundTrip(
      segments: ["search", "contacts"],
      query: [QueryItem("q", "$&?=+ é"), QueryItem("limit", "5"), QueryItem("empty", "")]),
    RoundTrip(segments: ["notifications"], query: [QueryItem("since", "a=b&c")]),
  ]

  @Test(
    "It reads an HTTPRequest's segments and query items as they arrive encoded on the wire",
    arguments: roundTrips)
  func readsRequestsAsSent(_ roundTrip: RoundTrip) throws {
    // given
    let request = try HTTPRequest(
      .get, RequestPath(segments: roundTrip.segments), query: roundTrip.query)

    // when
    let read = FakeRequest(request)

    // then
    #expect(read.segments == roundTrip.segments)
    #expect(read.query == roundTrip.query)
  }
}
