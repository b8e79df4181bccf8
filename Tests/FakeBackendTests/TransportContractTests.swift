import ConnectionParsing
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import LoopbackServer
import ParsingCore
import TestSupport
import Testing
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The three ways a test can reach the fake, which must behave the same.
enum FakePath: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `FakeTransport`, in-process.
  case inProcess
  /// `URLSessionTransport` → `URLSession` → `FakeURLProtocol` → the fake.
  case urlSession
  /// `URLSessionTransport` → `URLSession` → a real socket → the fake's loopback server.
  case loopback

  var testDescription: String { rawValue }

  /// Runs `body` with a transport that reaches `fake` this way; a loopback server is stopped
  /// afterwards.
  func withTransport<Result: Sendable>(
    for fake: FakeBackend, _ body: (any TransportSession) async throws -> Result
  ) async throws -> Result {
    switch self {
    case .inProcess:
      return try await body(fake.transport)
    case .urlSession:
      let (session, baseURL) = fake.makeURLSession()
      return try await body(
        URLSessionTransport(
          configuration: .init(baseURL: baseURL, retry: .never), session: session,
          time: fake.time))
    case .loopback:
      let server = try fake.serve()
      let configuration = URLSessionConfiguration.ephemeral
      // A held request fails on the client's own timeout; keep it short for the examples.
      configuration.timeoutIntervalForRequest = 1
      let transport = URLSessionTransport(
        configuration: .init(baseURL: server.baseURL, retry: .never),
        session: URLSession(configuration: configuration), time: fake.time)
      do {
        let result = try await body(transport)
        await server.stop()
        return result
      } catch {
        await server.stop()
        throw error
      }
    }
  }
}

/// Shared examples: every test runs over the three paths and checks the same outcome.
@Suite(
  "Transport contract", .tags(.transport, .integration), .courier(timeBudget: .seconds(10)),
  .disabled(
    under: .thread,
    "URLSession to a loopback socket times out under TSan on Linux; each path is tested alone"))
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
    let response = try await path.withTransport(for: fake) {
      try await $0.send(try HTTPRequest(.get, "/self"))
    }

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
    let response = try await path.withTransport(for: fake) {
      try await $0.send(
        try HTTPRequest(.get, "/search/contacts", query: [QueryItem("q", "$&?@ é")]))
    }

    // then
    #expect(fake.journal.last?.request.queryValue("q") == "$&?@ é")
    #expect(try response.json()["returned"] == 1)
  }

  @Test("A POST with a JSON body creates the same thing", arguments: FakePath.allCases)
  func post(_ path: FakePath) async throws {
    // given
    let (fake, me, ann) = Self.fake()

    // when
    let response = try await path.withTransport(for: fake) {
      try await $0.send(
        try HTTPRequest(
          .post, "/connections", json: ["user": ann.jsonValue, "name": "Ann", "message": "Hi"]))
    }

    // then
    #expect(response.status == 201)
    #expect(fake.connection(from: me, to: ann)?.message == "Hi")
    #expect(response.header("content-type") == "application/json")
  }

  @Test("A refused transition answers 403 with the same label", arguments: FakePath.allCases)
  func refused(_ path: FakePath) async throws {
    // given
    let (fake, _, ann) = Self.fake()

    // when
    let response = try await path.withTransport(for: fake) { transport in
      _ = try await transport.send(
        try HTTPRequest(.post, "/connections", json: ["user": ann.jsonValue, "name": "Ann"]))
      _ = try await transport.send(
        try HTTPRequest(.put, "/connections/\(ann)", json: ["status": "cancelled"]))
      return try await transport.send(
        try HTTPRequest(.put, "/connections/\(ann)", json: ["status": "sent"]))
    }

    // then
    #expect(response.status == 403)
    #expect(try response.json()["label"] == "bad-conn-update")
  }

  @Test(
    "An unknown endpoint answers 404 no-endpoint and the error reaches the test's log",
    arguments: FakePath.allCases)
  func unknownEndpoint(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()
    expectLoggedError(containing: "matched no endpoint: #0 GET /nowhere")

    // when
    let response = try await path.withTransport(for: fake) {
      try await $0.send(try HTTPRequest(.get, "/nowhere"))
    }

    // then
    #expect(response.status == 404)
    #expect(fake.unmatchedRequests.count == 1)
  }

  @Test("A network fault surfaces as the same TransportError", arguments: FakePath.allCases)
  func networkFault(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()
    fake.addFault(.once(.any, .network(.timedOut)))

    // when
    let outcome = try await path.withTransport(for: fake) { transport in
      await Task { try await transport.send(try HTTPRequest(.get, "/self")) }.result
    }

    // then
    #expect(throws: TransportError.network(.timedOut)) { try outcome.get() }
  }

  @Test("A malformed body arrives as bytes that do not parse", arguments: FakePath.allCases)
  func malformed(_ path: FakePath) async throws {
    // given
    let (fake, _, _) = Self.fake()
    fake.addFault(.once(.any, .malformedBody))

    // when
    let response = try await path.withTransport(for: fake) {
      try await $0.send(try HTTPRequest(.get, "/self"))
    }

    // then
    #expect(response.status == 200)
    #expect(throws: TransportError.self) { try response.json() }
  }
}
