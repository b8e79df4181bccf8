import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Seams
import TestSupport
import Testing
import Transport

/// A token provider that hands out `token-1`, then `token-2` after a refresh, and counts refreshes.
final class CountingTokens: AccessTokenProvider {
  private let state = Locked((current: 1, refreshes: 0))

  var refreshes: Int { state.withLock { $0.refreshes } }

  func token() async throws -> String { state.withLock { "token-\($0.current)" } }

  func refreshToken(rejected: String) async throws -> String {
    state.withLock { state in
      state.current += 1
      state.refreshes += 1
      return "token-\(state.current)"
    }
  }
}

/// A token provider that cannot give a new token, and gives `current` or none at all.
struct FailingTokens: AccessTokenProvider {
  /// Why no token comes.
  struct KeychainLocked: Error, CustomStringConvertible {
    var description: String { "the keychain is locked" }
  }

  var current: String?

  func token() async throws -> String {
    guard let current else { throw KeychainLocked() }
    return current
  }

  func refreshToken(rejected: String) async throws -> String { throw KeychainLocked() }
}

@Suite("URLSessionTransport", .tags(.transport, .integration), .courier(timeBudget: .seconds(10)))
struct URLSessionTransportTests {
  /// Options that let the transport retry temporary failures itself.
  static let retrying = SendOptions(retriesTemporaryFailures: true)

  let clock = ManualTimeSource()
  let fake: FakeBackend
  let tokens = CountingTokens()

  init() {
    fake = FakeBackend(time: clock)
    fake.insertSelfUser(name: "Me")
  }

  func transport(maxConcurrent: Int = 6, retry: RetryPolicy = RetryPolicy()) -> URLSessionTransport
  {
    let (session, baseURL) = fake.makeURLSession()
    return URLSessionTransport(
      configuration: .init(baseURL: baseURL, maxConcurrentRequests: maxConcurrent, retry: retry),
      session: session, tokens: tokens, time: clock, requestIDs: .seeded(7))
  }

  @Test("It sends through URLSession to the fake and back, with a bearer token and a request id")
  func roundTrip() async throws {
    // given
    let transport = transport()

    // when
    let response = try await transport.send(try HTTPRequest(.get, "/self"))

    // then
    #expect(response.status == 200)
    #expect(try response.json()["name"] == "Me")
    let headers = try #require(fake.journal.last?.request.headers)
    #expect(headers["authorization"] == "Bearer token-1")
    #expect(headers["x-request-id"] == UUIDSource.seeded(7).next().uuidString.lowercased())
  }

  @Test("Temporary failures of a GET are retried with backoff on the test clock")
  func retriesGet() async throws {
    // given
    let transport = transport()
    fake.addFault(.times(2, RequestMatcher("GET", "/self"), .status(503)))
    let sending = Task {
      try await transport.send(try HTTPRequest(.get, "/self"), options: Self.retrying).status
    }

    // when (the send's expiry is the other sleeper)
    await clock.waitForSleepers(2)
    let firstWait = clock.pendingSleeps
    clock.advance(by: .seconds(1))
    await clock.waitForSleepers(2)
    let secondWait = clock.pendingSleeps
    clock.advance(by: .seconds(2))

    // then
    #expect(try await sending.value == 200)
    #expect(fake.requests("GET", "/self").map(\.status) == [503, 503, 200])
    let first = try #require(firstWait.first)
    let second = try #require(secondWait.first)
    #expect(first >= .milliseconds(400) && first <= .milliseconds(600))
    #expect(second >= .milliseconds(800) && second <= .milliseconds(1200))
  }

  @Test("Unless the caller asks for retries, a temporary failure is answered as it came")
  func noRetriesByDefault() async throws {
    // given
    let transport = transport()
    fake.addFault(.once(RequestMatcher("GET", "/self"), .status(503)))

    // when
    let response = try await transport.send(try HTTPRequest(.get, "/self"))

    // then
    #expect(response.status == 503)
    #expect(fake.requests("GET", "/self").count == 1)
  }

  @Test("A POST is never retried, even when retries are asked for: it answers the first failure")
  func postNotRetried() async throws {
    // given
    let transport = transport()
    fake.addFault(.always(RequestMatcher("POST", "/conversations"), .status(503)))

    // when
    let response = try await transport.send(
      try HTTPRequest(.post, "/conversations", json: ["name": "G", "users": []]),
      options: Self.retrying)

    // then
    #expect(response.status == 503)
    #expect(fake.requests("POST", "/conversations").count == 1)
  }

  @Test("Retry-After is honoured when it asks for longer than the backoff")
  func honoursRetryAfter() async throws {
    // given
    let transport = transport()
    fake.addFault(.once(RequestMatcher("GET", "/self"), .status(429, retryAfter: 7)))
    let sending = Task {
      try await transport.send(try HTTPRequest(.get, "/self"), options: Self.retrying).status
    }

    // when
    await clock.waitForSleepers(2)
    let wait = clock.pendingSleeps
    clock.advance(by: .seconds(7))

    // then (the longer sleeper is the send's expiry)
    #expect(wait == [.seconds(7), TransportDefaults.expiry])
    #expect(try await sending.value == 200)
  }

  @Test("A 401 refreshes the token once and retries with the new one")
  func refreshesToken() async throws {
    // given
    let transport = transport()
    fake.addFault(.once(RequestMatcher("GET", "/self"), .status(401)))

    // when
    let response = try await transport.send(try HTTPRequest(.get, "/self"))

    // then
    #expect(response.status == 200)
    #expect(tokens.refreshes == 1)
    #expect(
      fake.requests("GET", "/self").map { $0.request.headers["authorization"] } == [
        "Bearer token-1", "Bearer token-2",
      ])
  }

  @Test("A second 401 is answered, not refreshed again")
  func refreshOnlyOnce() async throws {
    // given
    let transport = transport()
    fake.addFault(.always(RequestMatcher("GET", "/self"), .status(401)))

    // when
    let response = try await transport.send(try HTTPRequest(.get, "/self"))

    // then
    #expect(response.status == 401)
    #expect(tokens.refreshes == 1)
  }

  @Test("A provider that has no token to give fails the send as unauthenticated, naming why")
  func noToken() async throws {
    // given
    let (session, baseURL) = fake.makeURLSession()
    let transport = URLSessionTransport(
      configuration: .init(baseURL: baseURL), session: session, tokens: FailingTokens(),
      time: clock, requestIDs: .seeded(7))
    let request = try HTTPRequest(.get, "/self")

    // when / then
    await #expect(throws: TransportError.unauthenticated("no access token: the keychain is locked"))
    {
      try await transport.send(request)
    }
    #expect(fake.journal.isEmpty)
  }

  @Test("A 401 whose token cannot be refreshed fails the send as unauthenticated, naming why")
  func refreshFails() async throws {
    // given
    let (session, baseURL) = fake.makeURLSession()
    let transport = URLSessionTransport(
      configuration: .init(baseURL: baseURL), session: session,
      tokens: FailingTokens(current: "token-1"), time: clock, requestIDs: .seeded(7))
    fake.addFault(.once(RequestMatcher("GET", "/self"), .status(401)))
    let request = try HTTPRequest(.get, "/self")

    // when / then
    await #expect(
      throws: TransportError.unauthenticated(
        "the backend refused the token, and no new one came: the keychain is locked")
    ) { try await transport.send(request) }
    #expect(fake.requests("GET", "/self").count == 1)
  }

  @Test("At most N requests are in flight; the rest wait in order")
  func concurrencyLimit() async throws {
    // given
    let transport = transport(maxConcurrent: 2)
    fake.addFault(.always(RequestMatcher("GET", "/users/*"), .park))
    let ids = (0..<4).map { _ in fake.insertUser(name: "U") }
    let sends = ids.map { id in
      Task { try await transport.send(try HTTPRequest(.get, "/users/\(id)")).status }
    }

    // when
    await fake.waitForParkedRequests(2)
    let inFlight = fake.journal.count
    let load = transport.load
    fake.removeFaults()
    fake.releaseAllParkedRequests()
    var statuses: [Int] = []
    for send in sends { statuses.append(try await send.value) }

    // then
    #expect(inFlight <= 2)
    #expect(load.inFlight == 2)
    #expect(load.queued == 2)
    #expect(statuses == [200, 200, 200, 200])
  }

  @Test("A request that cannot finish before its expiry throws expired instead of waiting on")
  func expiry() async throws {
    // given
    let transport = transport()
    fake.addFault(.always(RequestMatcher("GET", "/self"), .status(503)))
    let sending = Task {
      try await transport.send(
        try HTTPRequest(.get, "/self"),
        options: SendOptions(expiry: .seconds(1), retriesTemporaryFailures: true))
    }

    // when (a backoff and the send's expiry)
    await clock.waitForSleepers(2)
    clock.advance(by: .milliseconds(600))
    let outcome = await sending.result

    // then
    #expect(throws: TransportError.expired(after: .seconds(1))) { try outcome.get() }
    #expect(fake.requests("GET", "/self").count == 2)
  }

  @Test("A request in flight past its expiry is cancelled on the wire and reported as expired")
  func expiryInFlight() async throws {
    // given
    let transport = transport()
    fake.addFault(.once(RequestMatcher("GET", "/self"), .park))
    let sending = Task {
      try await transport.send(try HTTPRequest(.get, "/self"), expiry: .seconds(2))
    }
    await fake.waitForParkedRequests(1)
    await clock.waitForSleepers(1)

    // when
    clock.advance(by: .seconds(2))
    let outcome = await sending.result

    // then
    #expect(throws: TransportError.expired(after: .seconds(2))) { try outcome.get() }
    // The cancelled URLSession task stops the fake's handling of it, which unparks it.
    while !fake.parkedRequests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
    #expect(fake.journal.map(\.status) == [nil])
    #expect(transport.load == (inFlight: 0, queued: 0))
  }

  @Test(
    "The wait for a slot counts towards the expiry: a request that waits too long is never sent")
  func expiryWhileQueued() async throws {
    // given
    let transport = transport(maxConcurrent: 1)

    // when
    // The expiry timer and the wait for a slot each sleep on the clock.
    let run = await QueuedExpiry.run(
      on: transport, load: { transport.load }, fake: fake, clock: clock, expiry: .seconds(2),
      sleepers: 2)

    // then
    #expect(throws: TransportError.expired(after: .seconds(2))) { try run.outcome.get() }
    #expect(run.loadAfterExpiry == (inFlight: 1, queued: 0))
    #expect(run.firstStatus == 200)
    #expect(fake.requests("GET", "/users/*").isEmpty)
  }

  @Test("A network failure comes back as the same TransportError")
  func networkFailure() async throws {
    // given
    let transport = transport(retry: .never)
    fake.addFault(.once(RequestMatcher("GET", "/self"), .network(.connectionLost)))

    // when
    let outcome = await Task { try await transport.send(try HTTPRequest(.get, "/self")) }.result

    // then
    #expect(throws: TransportError.network(.connectionLost)) { try outcome.get() }
  }

  @Test("Logs never contain the token")
  func redaction() async throws {
    // given
    let transport = transport()
    let recorder = LogRecorder()

    // when
    _ = try await CourierLogger.$sink.withValue(recorder) {
      try await transport.send(try HTTPRequest(.get, "/self"))
    }

    // then
    let text = recorder.entries.map(\.message).joined(separator: "\n")
    #expect(!recorder.entries.isEmpty)
    #expect(!text.contains("token-1"))
    #expect(text.contains("Authorization: Bearer <redacted>"))
  }

  @Test(
    "Redaction hides secret headers and keeps the rest",
    arguments: zip(
      [["Authorization": "Bearer abc"], ["cookie": "s=1"], ["Accept": "application/json"]],
      ["Authorization: Bearer <redacted>", "cookie: <redacted>", "Accept: application/json"]))
  func redactionTable(_ headers: [String: String], _ expected: String) {
    // when
    let text = Redaction.describe(headers)

    // then
    #expect(text == expected)
  }
}
