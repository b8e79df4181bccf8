import Foundation
import HTTPRequest
import TestSupport
import Testing

@Suite("RequestPath", .tags(.encoding), .timeBudget(.seconds(5)))
struct RequestPathTests {
  @Test(
    "It keeps an interpolated value inside one segment so it cannot inject structure",
    arguments: zip(
      ["a/b", "a?b=c", "a#frag", "../admin", "%2F", "x y"],
      [
        "/users/a%2Fb", "/users/a%3Fb%3Dc", "/users/a%23frag", "/users/..%2Fadmin",
        "/users/%252F", "/users/x%20y",
      ]
    )
  )
  func interpolatedValueStaysInOneSegment(userSupplied: String, expected: String) throws {
    // given
    let path: RequestPath = "/users/\(userSupplied)"

    // when
    let request = try HTTPRequest(.get, path)

    // then
    #expect(request.encodedPathAndQuery == expected)
    #expect(path.segments == ["users", userSupplied])
  }

  @Test(
    "It refuses a segment that is empty, '.' or '..'",
    arguments: ["", ".", ".."]
  )
  func dotAndEmptySegmentsAreRefused(userSupplied: String) {
    // given
    let path: RequestPath = "/users/\(userSupplied)/connections"

    // when
    let building = { () throws(HTTPRequestError) in _ = try HTTPRequest(.get, path) }

    // then
    #expect(throws: HTTPRequestError.invalidPathSegment(userSupplied)) { try building() }
  }

  @Test("It writes a UUID in lowercase and an integer in decimal")
  func typedParametersAreWrittenCanonically() throws {
    // given
    let id = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))

    // when
    let path: RequestPath = "/conversations/\(id)/messages/\(42)"

    // then
    #expect(path.encoded == "/conversations/e621e1f8-c36c-495a-93fc-0c247a3e6e5f/messages/42")
  }

  @Test("It builds the same path from segments as from a template")
  func segmentsAndTemplateAgree() {
    // given
    let fromTemplate: RequestPath = "/search/contacts"

    // when
    let fromSegments = RequestPath(segments: ["search", "contacts"])

    // then
    #expect(fromTemplate == fromSegments)
  }

  @Test(
    "It splits literal text at every '/', keeping empty segments and text of any script",
    arguments: zip(
      ["/a/b", "/a//b/", "//", "/ü/é/🙂", "/a b/c", "/conversations/"],
      [
        ["a", "b"], ["a", "", "b", ""], ["", ""], ["ü", "é", "🙂"], ["a b", "c"],
        ["conversations", ""],
      ]
    ))
  func literalSegments(literal: String, segments: [String]) {
    // given
    let text = literal

    // when
    let path = RequestPath(stringLiteral: text)

    // then
    #expect(path.segments == segments)
  }

  @Test("It joins literal text and an interpolated value that share a segment")
  func literalAndValueShareASegment() {
    // given
    let value = "x/y"

    // when
    let path: RequestPath = "/pre\(value)post/v\(value)/\(value)"

    // then
    #expect(path.segments == ["pre" + value + "post", "v" + value, value])
  }

  @Test("It treats '/' as the root path with no segments")
  func rootPathHasNoSegments() throws {
    // given
    let path: RequestPath = "/"

    // when
    let request = try HTTPRequest(.get, path)

    // then
    #expect(path.segments.isEmpty)
    #expect(request.encodedPathAndQuery == "/")
  }

  @Test("It refuses a path literal that does not start with '/'")
  func relativeLiteralIsRefused() {
    // given
    let path: RequestPath = "users/\(7)"

    // when
    let building = { () throws(HTTPRequestError) in _ = try HTTPRequest(.get, path) }

    // then
    #expect(throws: HTTPRequestError.pathNotAbsolute("users/7")) { try building() }
  }

  @Test("It refuses a trailing slash, which would name an empty segment")
  func trailingSlashIsRefused() {
    // given
    let path: RequestPath = "/users/"

    // when
    let building = { () throws(HTTPRequestError) in _ = try HTTPRequest(.get, path) }

    // then
    #expect(throws: HTTPRequestError.invalidPathSegment("")) { try building() }
  }
}
