import ConversationParsing
import CourierAPI
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Seams
import TestSupport
import Testing
import Transport
import UserParsing

extension FakeBackendTests {
  @Suite("Journal")
  struct Journal {
    @Test("It journals every request in order with its endpoint and status")
    func order() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()

      // when
      _ = try await fake.call(.get, "/self")
      _ = try await fake.call(.put, "/self", json: ["name": "X"])
      _ = try await fake.call(.get, "/users/\(UUID().text)")

      // then
      #expect(fake.journal.map(\.index) == [0, 1, 2])
      #expect(fake.journal.map(\.route) == [.getSelf, .updateSelf, .getUser])
      #expect(fake.journal.map(\.status) == [200, 200, 404])
      #expect(fake.requests("GET", "/users/*").count == 1)
      #expect(fake.requests("PUT", "/self").first?.request.json?["name"] == "X")
    }

    @Test("It finds requests by their route and status, and fault rules match a route")
    func typedQueries() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      fake.addFault(.once(RequestMatcher(.getUser), .status(503)))
      fake.addFault(.once(RequestMatcher(.postMessage), .status(503)))

      // when
      _ = try await fake.call(.get, "/users/\(UUID().text)")
      _ = try await fake.call(.get, "/users/\(UUID().text)")
      _ = try await fake.call(.get, "/self")

      // then
      #expect(fake.requests(.getUser).map(\.status) == [503, 404])
      #expect(fake.requests(.getUser, status: 404).count == 1)
      #expect(fake.requests(.getSelf, status: 200).count == 1)
      #expect(
        fake.unfiredFaultRules.map(\.description) == [
          "POST /conversations/*/messages: status 503"
        ])
    }

    @Test("Lenient, an unknown endpoint answers 404 no-endpoint and is journalled as unmatched")
    func unmatched() async throws {
      // given
      let fake = FakeBackend(onUnmatched: nil)
      fake.insertSelfUser()

      // when
      let (status, body) = try await fake.call(.get, "/teleport")

      // then
      #expect(status == 404)
      #expect(body?["label"] == "no-endpoint")
      #expect(fake.unmatchedRequests.map(\.request.path) == ["/teleport"])
      #expect(fake.journal.last?.description == "#0 GET /teleport → 404 [unmatched]")
    }

    @Test("By default an unmatched request is an error in the log of the test that made the fake")
    func strictByDefault() async throws {
      // given
      let recorder = LogRecorder()
      let fake = CourierLogger.$sink.withValue(recorder) { FakeBackend() }
      fake.insertSelfUser()

      // when
      _ = try await fake.call(.delete, "/self")

      // then
      withKnownIssue {
        recorder.verify(failureRecorder: FailureRecorder())
      } matching: { issue in
        issue.mentions("matched no endpoint: #0 DELETE /self")
      }
    }

    @Test("A closure given for unmatched requests fails the test in its own way")
    func strictMode() async throws {
      // given
      let fake = FakeBackend(onUnmatched: { Issue.record("unmatched request: \($0)") })
      fake.insertSelfUser()

      // when
      try await withKnownIssue {
        _ = try await fake.call(.delete, "/self")
      } matching: {
        $0.comments.contains { $0.rawValue.contains("unmatched request: #0 DELETE /self") }
      }

      // then
      #expect(fake.unmatchedRequests.count == 1)
    }

    @Test("Without a self user every endpoint answers 403 no-self")
    func noSelf() async throws {
      // given
      let fake = FakeBackend()

      // when
      let (status, body) = try await fake.call(.get, "/connections")

      // then
      #expect(status == 403)
      #expect(body?["label"] == "no-self")
    }

    @Test("Resetting the journal and faults keeps the server's state")
    func reset() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      fake.addFault(.always(RequestMatcher("GET", "/self"), .status(500)))
      _ = try await fake.call(.put, "/self", json: ["name": "Kept"])

      // when
      fake.resetJournalAndFaults()
      let (status, body) = try await fake.call(.get, "/self")

      // then
      #expect(status == 200)
      #expect(body?["name"] == "Kept")
      #expect(fake.journal.count == 1)
    }

    @Test("Fake backends share nothing, and a fresh one is cheap enough to make per test")
    func isolation() async throws {
      // given
      let first = FakeBackend()
      let second = FakeBackend()
      first.insertSelfUser(name: "First")

      // when
      let (status, _) = try await second.call(.get, "/self")

      // then
      #expect(status == 403)
      #expect(second.journal.count == 1)
      #expect(first.journal.isEmpty)
    }
  }

  @Suite("Faults")
  struct Faults {
    static func fakeWithSelf(time: any TimeSource = SystemTimeSource()) -> FakeBackend {
      let fake = FakeBackend(time: time)
      fake.insertSelfUser(name: "Me")
      return fake
    }

    @Test(
      "Rules apply to as many matching requests as they say, then let requests through",
      arguments: zip(
        [
          FaultRule.once(RequestMatcher("GET", "/self"), .status(503)),
          .times(2, RequestMatcher("GET", "/self"), .status(503)),
          .always(RequestMatcher(nil, "/**"), .status(503)),
          FaultRule(RequestMatcher("GET", "/self"), steps: [nil, .status(429), nil, .status(500)]),
          .once(RequestMatcher("PUT", "/self"), .status(503)),
        ],
        [
          [503, 200, 200, 200], [503, 503, 200, 200], [503, 503, 503, 503], [200, 429, 200, 500],
          [200, 200, 200, 200],
        ]))
    func ruleSteps(_ rule: FaultRule, _ expected: [Int]) async throws {
      // given
      let fake = Self.fakeWithSelf()
      fake.addFault(rule)

      // when
      var statuses: [Int] = []
      for _ in 0..<4 { statuses.append(try await fake.call(.get, "/self").status) }

      // then
      #expect(statuses == expected)
    }

    @Test(
      "Matchers compare the method and the path, with * for a segment and ** for the rest",
      arguments: zip(
        [
          RequestMatcher("POST", "/conversations/*/messages"),
          RequestMatcher(nil, "/conversations/**"),
          RequestMatcher("GET", "/conversations/*/messages"),
          RequestMatcher("POST", "/conversations/*"),
          .any(except: "DELETE"),
          .any(except: "post"),
        ],
        [true, true, false, false, true, false]))
    func matcher(_ matcher: RequestMatcher, _ matches: Bool) {
      // given
      let request = FakeRequest(method: "POST", segments: ["conversations", "abc", "messages"])

      // when
      let result = matcher.matches(request)

      // then
      #expect(result == matches)
    }

    @Test(
      "A matcher built with an id matches that id in any case, as the id is the same",
      arguments: zip(
        [
          "/conversations/\(UUID(0xABC))/members",
          "/conversations/\(UUID(0xABC).lowercasedText)/members",
          "/conversations/\(UUID(0xABD))/members", "/Conversations/\(UUID(0xABC))/members",
        ],
        [true, true, false, false]))
    func matcherWithID(_ path: String, _ matches: Bool) {
      // given: the client writes ids in lower case; `UUID.description` is upper case
      let matcher = RequestMatcher("DELETE", path)
      let request = FakeRequest(
        method: "DELETE", segments: ["conversations", UUID(0xABC).lowercasedText, "members"])

      // when
      let result = matcher.matches(request)

      // then
      #expect(result == matches)
    }

    @Test("A matcher that leaves out a method says so, and lets those requests through")
    func excludingMatcher() async throws {
      // given
      let fake = Self.fakeWithSelf()
      let everythingButDeletions = RequestMatcher.any(except: "DELETE")
      fake.addFault(.once(everythingButDeletions, .status(400)))

      // when
      let deletion = try await fake.call(
        .delete, "/conversations/\(UUID().text)/messages/\(UUID().text)")
      let rename = try await fake.call(.put, "/self", json: ["name": "Changed"])

      // then
      #expect(everythingButDeletions.description == "* /** but DELETE")
      #expect(deletion.status == 404)
      #expect(rename.status == 400)
    }

    @Test(
      "A network fault fails the request before the server acts on it",
      arguments: [NetworkFailure.connectionLost, .timedOut, .offline])
    func networkFault(_ failure: NetworkFailure) async throws {
      // given
      let fake = Self.fakeWithSelf()
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .network(failure)))

      // when
      let outcome = try await fake.send(.put, "/self", json: ["name": "Changed"])

      // then
      #expect(throws: TransportError.network(failure)) { try outcome.get() }
      #expect(fake.user(try #require(fake.selfUserID))?.name == "Me")
      #expect(fake.journal.last?.status == nil)
    }

    @Test("A lost response applies the change and then fails: a resend must not duplicate it")
    func lostResponse() async throws {
      // given
      let fake = Self.fakeWithSelf()
      let group = fake.createGroupRemotely(
        name: "G", by: try #require(fake.selfUserID), members: [])
      fake.addFault(.once(RequestMatcher("POST", "/conversations/*/messages"), .loseResponse))
      let body: JSONValue = ["nonce": .string(UUID().text), "text": "Once"]

      // when
      let lost = try await fake.send(.post, "/conversations/\(group.text)/messages", json: body)
      let resent = try await fake.call(.post, "/conversations/\(group.text)/messages", json: body)

      // then
      #expect(throws: TransportError.network(.connectionLost)) { try lost.get() }
      #expect(resent.status == 201)
      #expect(fake.messages(in: group).map(\.text) == ["Once"])
    }

    @Test(
      "A lost response's journal entry keeps the status the server answered, applied or refused",
      arguments: [(true, 201), (false, 404)] as [(Bool, Int)])
    func lostResponseStatusInJournal(groupExists: Bool, status: Int) async throws {
      // given: a group the self user is in, or a group the server does not know
      let fake = Self.fakeWithSelf()
      let me = try #require(fake.selfUserID)
      let group = groupExists ? fake.createGroupRemotely(name: "G", by: me, members: []) : UUID()
      fake.addFault(.once(RequestMatcher("POST", "/conversations/*/messages"), .loseResponse))
      let body: JSONValue = ["nonce": .string(UUID().text), "text": "Once"]

      // when
      _ = try await fake.send(.post, "/conversations/\(group.text)/messages", json: body)

      // then
      #expect(fake.journal.last?.status == status)
      #expect(fake.journal.last?.fault == .loseResponse)
    }

    @Test("A malformed body still applies the change, and the body fails to parse")
    func malformedBody() async throws {
      // given
      let fake = Self.fakeWithSelf()
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .malformedBody))

      // when
      let response = try await fake.send(.put, "/self", json: ["name": "Changed"]).get()

      // then
      #expect(response.status == 200)
      #expect(throws: TransportError.self) { try response.json() }
      #expect(fake.user(try #require(fake.selfUserID))?.name == "Changed")
    }

    @Test("A delay holds the response until the test clock has moved that far")
    func delay() async throws {
      // given
      let clock = ManualTimeSource()
      let fake = Self.fakeWithSelf(time: clock)
      fake.addFault(.once(RequestMatcher("GET", "/self"), .delay(.seconds(3))))
      let sending = Task { try await fake.call(.get, "/self").status }

      // when
      await clock.waitForSleepers(1)
      let pending = clock.pendingSleeps
      clock.advance(by: .seconds(3))

      // then
      #expect(pending == [.seconds(3)])
      #expect(try await sending.value == 200)
    }

    @Test("A parked request stays in flight until released, then completes normally")
    func park() async throws {
      // given
      let fake = Self.fakeWithSelf()
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))
      let sending = Task { try await fake.call(.put, "/self", json: ["name": "Later"]).status }

      // when
      await fake.waitForParkedRequests(1)
      let nameWhileParked = fake.user(try #require(fake.selfUserID))?.name
      let released = fake.releaseParkedRequest(try #require(fake.parkedRequests.first))

      // then
      #expect(nameWhileParked == "Me")
      #expect(released)
      #expect(try await sending.value == 200)
      #expect(fake.user(try #require(fake.selfUserID))?.name == "Later")
    }

    @Test("Offline, requests fail at once, or hang until their expiry on the test clock")
    func offline() async throws {
      // given
      let clock = ManualTimeSource()
      let fake = Self.fakeWithSelf(time: clock)

      // when
      fake.network = .offline
      let failed = try await fake.send(.get, "/self")
      fake.network = .unresponsive
      let hanging = Task { try await fake.send(.get, "/self") }
      await clock.waitForSleepers(1)
      clock.advance(by: TransportDefaults.expiry)
      let expired = try await hanging.value
      fake.network = .online
      let online = try await fake.call(.get, "/self")

      // then
      #expect(throws: TransportError.network(.offline)) { try failed.get() }
      #expect(throws: TransportError.expired(after: TransportDefaults.expiry)) { try expired.get() }
      #expect(online.status == 200)
    }
  }
}

extension FakeBackendTests.Faults {
  @Test("A request that fails offline never reached the server, so it does not use up a fault")
  func offlineKeepsFaults() async throws {
    // given
    let fake = Self.fakeWithSelf()
    fake.addFault(.once(RequestMatcher("GET", "/self"), .status(503)))
    fake.network = .offline
    _ = try await fake.send(.get, "/self")

    // when
    fake.network = .online
    let statuses = [
      try await fake.call(.get, "/self").status, try await fake.call(.get, "/self").status,
    ]

    // then
    #expect(statuses == [503, 200])
  }
}

extension FakeBackendTests.Faults {
  @Test(
    "A parked request whose task is cancelled ends as cancelled, unapplied and unparked, and stays listed until the journal shows it ended"
  )
  func parkedAndCancelled() async throws {
    // given
    let fake = Self.fakeWithSelf()
    fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))
    let sending = Task { try await fake.send(.put, "/self", json: ["name": "Never"]) }
    await fake.waitForParkedRequests()

    // when
    sending.cancel()
    let stillParked = !fake.parkedRequests.isEmpty
    let journalled = fake.journal.map(\.status)
    let outcome = try await sending.value

    // then
    #expect(throws: TransportError.cancelled) { try outcome.get() }
    // A test that waits for the parked list to empty may read the journal at once.
    #expect(stillParked || journalled == [nil])
    #expect(fake.journal.map(\.status) == [nil])
    #expect(fake.parkedRequests.isEmpty)
    #expect(fake.user(try #require(fake.selfUserID))?.name != "Never")
  }
}

extension FakeBackendTests.Faults {
  @Test("A dropped parked request fails as a lost connection and changes nothing")
  func droppedParkedRequest() async throws {
    // given
    let fake = Self.fakeWithSelf()
    fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))
    let sending = Task { try await fake.send(.put, "/self", json: ["name": "Dropped"]) }
    await fake.waitForParkedRequests()

    // when
    let dropped = fake.dropParkedRequest(try #require(fake.parkedRequests.first))
    let outcome = try await sending.value

    // then
    #expect(dropped)
    #expect(throws: TransportError.network(.connectionLost)) { try outcome.get() }
    #expect(fake.user(try #require(fake.selfUserID))?.name != "Dropped")
    #expect(fake.parkedRequests.isEmpty)
  }
}

extension FakeBackendTests.Faults {
  @Test("A parked request refused while held is answered with that status and changes nothing")
  func refusedParkedRequest() async throws {
    // given
    let fake = Self.fakeWithSelf()
    fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))
    let sending = Task { try await fake.call(.put, "/self", json: ["name": "Refused"]).status }
    await fake.waitForParkedRequests()
    let index = try #require(fake.parkedRequests.first)
    let held = fake.parkedRequest(index)

    // when
    let refused = fake.refuseParkedRequest(index)

    // then
    #expect(held?.method == "PUT")
    #expect(refused)
    #expect(try await sending.value == 400)
    #expect(fake.user(try #require(fake.selfUserID))?.name != "Refused")
    #expect(fake.parkedRequests.isEmpty)
    #expect(fake.parkedRequest(index) == nil)
    #expect(fake.journal.last?.status == 400)
  }
}

extension FakeBackendTests.Faults {
  @Test(
    "A held answer is worked out when the request arrives and reaches the client only when released"
  )
  func heldAnswer() async throws {
    // given: a rename whose answer is held, then a later rename answered at once
    let fake = Self.fakeWithSelf()
    fake.addFault(.once(RequestMatcher("GET", "/self"), .holdAnswer))
    let reading = Task { try await fake.call(.get, "/self") }
    await fake.waitForParkedRequests()
    let index = try #require(fake.parkedRequests.first)
    _ = try await fake.call(.put, "/self", json: ["name": "Newer"])

    // when
    let released = fake.releaseParkedRequest(index)
    let (status, body) = try await reading.value

    // then: the answer is the self user as it was when the request arrived
    #expect(released)
    #expect(status == 200)
    #expect(body?["name"] == "Me")
    #expect(fake.journal.first?.status == 200)
  }

  @Test("A request whose answer is held is applied, so it can be dropped but not refused")
  func heldAnswerIsApplied() async throws {
    // given
    let fake = Self.fakeWithSelf()
    fake.addFault(.once(RequestMatcher("PUT", "/self"), .holdAnswer))
    let sending = Task { try await fake.send(.put, "/self", json: ["name": "Applied"]) }
    await fake.waitForParkedRequests()
    let index = try #require(fake.parkedRequests.first)
    let nameWhileHeld = fake.user(try #require(fake.selfUserID))?.name

    // when
    let refused = fake.refuseParkedRequest(index)
    let dropped = fake.dropParkedRequest(index)
    let outcome = try await sending.value

    // then
    #expect(nameWhileHeld == "Applied")
    #expect(!refused)
    #expect(dropped)
    #expect(throws: TransportError.network(.connectionLost)) { try outcome.get() }
    #expect(fake.parkedRequests.isEmpty)
  }
}
