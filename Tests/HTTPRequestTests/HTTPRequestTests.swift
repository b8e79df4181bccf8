import Foundation
import HTTPRequest
import JSON
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("HTTPRequest", .tags(.encoding), .timeBudget(.seconds(5)))
struct HTTPRequestTests {
  @Test("It does URL encoding of the article's search query")
  func articleSearchQueryIsEncoded() throws {
    // given
    let searchQuery = "$&?@"
    let request = try HTTPRequest(.get, "/search", query: [QueryItem("q", searchQuery)])

    // when
    let encodedURL = request.encodedPathAndQuery

    // then
    #expect(encodedURL == "/search?q=%24%26%3F%40")
  }

  @Test("It describes itself as the method followed by the encoded path and query")
  func descriptionNamesMethodAndEncodedURL() throws {
    // given
    let request = try HTTPRequest(.get, "/search", query: [QueryItem("q", "$&?@")])

    // when
    let description = request.description

    // then
    #expect(description == "GET /search?q=%24%26%3F%40")
  }

  @Test(
    "It encodes query keys as strictly as values",
    arguments: zip(
      [QueryItem("a b", "1"), QueryItem("k=", "v"), QueryItem("ä", "&")],
      ["a%20b=1", "k%3D=v", "%C3%A4=%26"]
    )
  )
  func queryKeysAreEncoded(item: QueryItem, expected: String) throws {
    // given
    let request = try HTTPRequest(.get, "/search", query: [item])

    // when
    let query = request.encodedQuery

    // then
    #expect(query == expected)
  }

  @Test(
    "It keeps empty names and values and repeated keys in order",
    arguments: zip(
      [
        [QueryItem("q", "")],
        [QueryItem("", "v")],
        [QueryItem("id", "1"), QueryItem("id", "2"), QueryItem("id", "1")],
        [QueryItem("b", "2"), QueryItem("a", "1")],
      ],
      ["/s?q=", "/s?=v", "/s?id=1&id=2&id=1", "/s?b=2&a=1"]
    )
  )
  func queryItemsKeepTheirOrder(items: [QueryItem], expected: String) throws {
    // given
    let request = try HTTPRequest(.get, "/s", query: items)

    // when
    let encoded = request.encodedPathAndQuery

    // then
    #expect(encoded == expected)
  }

  @Test("It writes no '?' when there is no query")
  func noQueryMeansNoQuestionMark() throws {
    // given
    let request = try HTTPRequest(.get, "/self")

    // when
    let encoded = request.encodedPathAndQuery

    // then
    #expect(encoded == "/self")
  }
}

extension HTTPRequestTests {
  /// One row of the method × body table: what building the request should do.
  struct BodyCase: Sendable, CustomTestStringConvertible {
    let method: HTTPMethod
    let body: HTTPBody?
    let expectedError: HTTPRequestError?

    var testDescription: String {
      let bodyName =
        switch body {
        case .none: "no body"
        case .json: "a JSON body"
        case .raw: "a raw body"
        }
      let outcome = expectedError.map { "throws \($0)" } ?? "builds"
      return "\(method) with \(bodyName) \(outcome)"
    }
  }

  static let json = HTTPBody.json(["name": "Ada"])
  static let raw = HTTPBody.raw(Data([1, 2, 3]), contentType: "application/octet-stream")

  static let bodyCases: [BodyCase] = [
    BodyCase(method: .get, body: nil, expectedError: nil),
    BodyCase(method: .get, body: json, expectedError: .bodyNotAllowed(.get)),
    BodyCase(method: .get, body: raw, expectedError: .bodyNotAllowed(.get)),
    BodyCase(method: .head, body: nil, expectedError: nil),
    BodyCase(method: .head, body: json, expectedError: .bodyNotAllowed(.head)),
    BodyCase(method: .head, body: raw, expectedError: .bodyNotAllowed(.head)),
    BodyCase(method: .post, body: nil, expectedError: nil),
    BodyCase(method: .post, body: json, expectedError: nil),
    BodyCase(method: .post, body: raw, expectedError: nil),
    BodyCase(method: .put, body: nil, expectedError: .bodyRequired(.put)),
    BodyCase(method: .put, body: json, expectedError: nil),
    BodyCase(method: .put, body: raw, expectedError: nil),
    BodyCase(method: .patch, body: nil, expectedError: .bodyRequired(.patch)),
    BodyCase(method: .patch, body: json, expectedError: nil),
    BodyCase(method: .patch, body: raw, expectedError: nil),
    BodyCase(method: .delete, body: nil, expectedError: nil),
    BodyCase(method: .delete, body: json, expectedError: nil),
    BodyCase(method: .delete, body: raw, expectedError: nil),
  ]

  @Test("It enforces each method's body rule when the request is built", arguments: bodyCases)
  func bodyRuleIsEnforced(row: BodyCase) {
    // when
    let result = Result { () throws(HTTPRequestError) in
      try HTTPRequest(row.method, "/things", body: row.body).body
    }

    // then
    #expect(result == row.expectedError.map { .failure($0) } ?? .success(row.body))
  }

  @Test(
    "A refused body names the method",
    arguments: bodyCases.compactMap { row in row.expectedError.map { (row.method, $0) } })
  func bodyRuleNamesMethod(method: HTTPMethod, error: HTTPRequestError) {
    // when
    let text = error.description

    // then
    #expect(text.contains(method.rawValue))
  }

  @Test(
    "It refuses header names that are not tokens and values that break lines",
    arguments: zip(
      [HTTPHeader("", "x"), HTTPHeader("X Bad", "x"), HTTPHeader("X-Id", "a\r\nEvil: 1")],
      [
        HTTPRequestError.invalidHeaderName(""), .invalidHeaderName("X Bad"),
        .invalidHeaderValue(name: "X-Id"),
      ]
    )
  )
  func badHeadersAreRefused(header: HTTPHeader, expected: HTTPRequestError) {
    // when
    let building = { () throws(HTTPRequestError) in
      _ = try HTTPRequest(.get, "/self", headers: [header])
    }

    // then
    #expect(throws: expected) { try building() }
  }

  @Test(
    "It accepts a header name made of token characters",
    arguments: Array("!#$%&'*+-.^_`|~azAZ09"))
  func tokenCharactersAreAccepted(character: Character) {
    // given
    let header = HTTPHeader("X-\(character)", "v")

    // when
    let checking = { () throws(HTTPRequestError) in try header.validate() }

    // then
    #expect(throws: Never.self) { try checking() }
  }

  @Test(
    "It refuses a header name holding a character that is not a token character",
    arguments: Array("()<>@,;:\\\"/[]?={} \té"))
  func otherCharactersAreRefused(character: Character) {
    // given
    let header = HTTPHeader("X-\(character)", "v")

    // when
    let checking = { () throws(HTTPRequestError) in try header.validate() }

    // then
    #expect(throws: HTTPRequestError.invalidHeaderName("X-\(character)")) { try checking() }
  }

  @Test(
    "Adding a header checks it as building does",
    arguments: zip(
      [HTTPHeader("", "x"), HTTPHeader("X Bad", "x"), HTTPHeader("X-Id", "a\r\nEvil: 1")],
      [
        HTTPRequestError.invalidHeaderName(""), .invalidHeaderName("X Bad"),
        .invalidHeaderValue(name: "X-Id"),
      ]
    )
  )
  func addedBadHeadersAreRefused(header: HTTPHeader, expected: HTTPRequestError) throws {
    // given
    let request = try HTTPRequest(.get, "/self")

    // when
    let adding = { () throws(HTTPRequestError) in _ = try request.adding(header) }

    // then
    #expect(throws: expected) { try adding() }
  }

  @Test("Adding a header keeps the request and sends the header after the others")
  func addedHeaderGoesLast() throws {
    // given
    let request = try HTTPRequest(
      .post,
      "/conversations/\(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))/members",
      query: [QueryItem("a", "b")], headers: [HTTPHeader("X-First", "1")], json: ["k": "v"])

    // when
    let keyed = try request.adding(HTTPHeader("Idempotency-Key", "k-1"))

    // then
    let expected = try HTTPRequest(
      request.method, request.path, query: request.query,
      headers: [HTTPHeader("X-First", "1"), HTTPHeader("Idempotency-Key", "k-1")],
      body: request.body)
    #expect(keyed == expected)
  }

  @Test("It refuses a raw body whose content type could inject a header")
  func rawBodyContentTypeIsChecked() {
    // given
    let body = HTTPBody.raw(Data(), contentType: "text/plain\r\nX-Evil: 1")

    // when
    let building = { () throws(HTTPRequestError) in
      _ = try HTTPRequest(.post, "/assets", body: body)
    }

    // then
    #expect(throws: HTTPRequestError.invalidContentType("text/plain\r\nX-Evil: 1")) {
      try building()
    }
  }
}

extension HTTPRequestTests {
  @Suite("Foundation URLRequest", .tags(.encoding, .transport))
  struct URLRequestTests {
    let baseURL = URL(string: "https://api.courier.test/v1/")

    @Test("It sends a JSON body as application/json with serialized bytes")
    func jsonBodySetsContentType() throws {
      // given
      let base = try #require(baseURL)
      let request = try HTTPRequest(.put, "/self", json: ["name": "Ada", "accent_id": 3])

      // when
      let urlRequest = try request.urlRequest(relativeTo: base)

      // then
      #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
      #expect(urlRequest.httpMethod == "PUT")
      #expect(urlRequest.httpBody == Data(#"{"accent_id":3,"name":"Ada"}"#.utf8))
    }

    @Test("It keeps the base URL's path as a prefix and the query encoded")
    func baseURLPathIsKept() throws {
      // given
      let base = try #require(baseURL)
      let request = try HTTPRequest(.get, "/search", query: [QueryItem("q", "$&?@")])

      // when
      let url = try request.url(relativeTo: base)

      // then
      #expect(url.absoluteString == "https://api.courier.test/v1/search?q=%24%26%3F%40")
    }

    @Test("It copies headers in order and sets no content type without a body")
    func headersAreCopied() throws {
      // given
      let base = try #require(baseURL)
      let request = try HTTPRequest(
        .get, "/self", headers: [HTTPHeader("Accept", "application/json")])

      // when
      let urlRequest = try request.urlRequest(relativeTo: base)

      // then
      #expect(urlRequest.value(forHTTPHeaderField: "Accept") == "application/json")
      #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == nil)
      #expect(urlRequest.httpBody == nil)
    }

    @Test(
      "It refuses a base URL that has a query or no host",
      arguments: ["https://api.courier.test/?x=1", "file:///tmp", "mailto:ada"]
    )
    func unusableBaseURLIsRefused(text: String) throws {
      // given
      let base = try #require(URL(string: text))
      let request = try HTTPRequest(.get, "/self")

      // when
      let building = { () throws(HTTPRequestError) in _ = try request.url(relativeTo: base) }

      // then
      #expect(throws: HTTPRequestError.invalidBaseURL(text)) { try building() }
    }
  }
}
