import ConnectionParsing
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import ParsingCore
import TestSupport
import Testing
import Transport

/// The two ways a test can reach the fake, which must behave the same.
enum FakePath: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `FakeTransport`, in-process.
  case inProcess
  /// `URLSessionTransport` → `URLSession` → `FakeURLProtocol` → the fake.
  case urlSession

  var testDescription: String { rawValue }

  func transport(for fake: FakeBackend) -> any TransportSession {
    switch self {
    case .inProcess:
      return fake.transport
    case .urlSession:
      let (session, baseURL) = fake.makeURLSession()
      return URLSessionTransport(
        configuration: .init(baseURL: baseURL, retry: .never), session: session,
        time: fake.time)
    }
  }
}

/// Shared examples: every test runs over both paths and checks the same outcome.
@Suite("Transport contract", .tags(.transport, .integration), .courier(timeBudget: .seconds(10)))
struct TransportContractTests {
  static func fake() -> (FakeBackend, me: UUID, ann: UUID) {
    let fake = FakeBackend(uuids: .seeded(3))
    let me = fake.insertSelfUser(name: "Me")
    let ann = fake.insertUser(name: "Ann $&?@ é")
    return (fake, me, ann)
  }

  @Test("GET answers the same status and body", arguments: FakePath.allCases)
  func get(_ path: FakePath) async throws {
    // given
    let (fake, me, _) = Self.fake()

    // when
    let response = try await path.transport(for: fake).send(try HTTPRequest(.get, "/self"))

    // then
    #expect(response.status == 200)
    #expect(try response.json()["id"] == me.jsonValue)
  }

  @Test(
    "Reserved and non-ASCII query values reach the fake decoded exactly",
    arguments: FakePath.allCases)
  func encodedQuery(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()

    // when
    let response = try await path.transport(for: fake).send(
      try HTTPRequest(.get, "/search/contacts", query: [QueryItem("q", "$&?@ é")]))

    // then
    #expect(fake.journal.last?.request.queryValue("q") == "$&?@ é")
    #expect(try response.json()["returned"] == 1)
  }

  @Test("A POST with a JSON body creates the same thing", arguments: FakePath.allCases)
  func post(_ path: FakePath) async throws {
    // given
    let (fake, me, ann) = Self.fake()

    // when
    let response = try await path.transport(for: fake).send(
      try HTTPRequest(
        .post, "/connections", json: ["user": ann.jsonValue, "name": "Ann", "message": "Hi"]))

    // then
    #expect(response.status == 201)
    #expect(fake.connection(from: me, to: ann)?.message == "Hi")
    #expect(response.header("content-type") == "application/json")
  }

  @Test("A refused transition answers 403 with the same label", arguments: FakePath.allCases)
  func refused(_ path: FakePath) async throws {
    // given
    let (fake, _, ann) = Self.fake()
    let transport = path.transport(for: fake)
    _ = try await transport.send(
      try HTTPRequest(.post, "/connections", json: ["user": ann.jsonValue, "name": "Ann"]))
    _ = try await transport.send(
      try HTTPRequest(.put, "/connections/\(ann)", json: ["status": "cancelled"]))

    // when
    let response = try await transport.send(
      try HTTPRequest(.put, "/connections/\(ann)", json: ["status": "sent"]))

    // then
    #expect(response.status == 403)
    #expect(try response.json()["label"] == "bad-conn-update")
  }

  @Test("An unknown endpoint answers 404 no-endpoint", arguments: FakePath.allCases)
  func unknownEndpoint(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()

    // when
    let response = try await path.transport(for: fake).send(try HTTPRequest(.get, "/nowhere"))

    // then
    #expect(response.status == 404)
    #expect(fake.unmatchedRequests.count == 1)
  }

  @Test("A network fault surfaces as the same TransportError", arguments: FakePath.allCases)
  func networkFault(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()
    fake.addFault(.once(.any, .network(.timedOut)))
    let transport = path.transport(for: fake)

    // when
    let outcome = await Task { try await transport.send(try HTTPRequest(.get, "/self")) }.result

    // then
    #expect(throws: TransportError.network(.timedOut)) { try outcome.get() }
  }

  @Test("A malformed body arrives as bytes that do not parse", arguments: FakePath.allCases)
  func malformed(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()
    fake.addFault(.once(.any, .malformedBody))

    // when
    let response = try await path.transport(for: fake).send(try HTTPRequest(.get, "/self"))

    // then
    #expect(response.status == 200)
    #expect(throws: TransportError.self) { try response.json() }
  }
}
