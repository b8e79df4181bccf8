import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import ParsingCore
import TestSupport
import Testing
import Transport
import UserParsing

extension FakeBackendTests {
  @Suite("The server's order and idempotency keys")
  struct Ordering {
    @Test(
      "Each notification carries the next version, a change's answer the version its change produced, and a read's the version it read"
    )
    func versions() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()

      // when
      let first = try await fake.send(.put, "/self", json: ["name": "Grace"]).get()
      let second = try await fake.send(.put, "/self", json: ["name": "Hopper"]).get()
      let read = try await fake.send(.get, "/self").get()

      // then
      let news = try await notifications(of: fake)
      #expect(news.map(\.version) == [ServerVersion(1), ServerVersion(2)])
      #expect(first.header(ServerVersion.header) == "1")
      #expect(second.header(ServerVersion.header) == "2")
      #expect(read.header(ServerVersion.header) == "2")
      #expect(fake.version == ServerVersion(2))
    }

    @Test(
      "A change sent again with its idempotency key is answered with the first answer and applied once"
    )
    func repeatedKey() async throws {
      // given: a rename went with a key, then another device renamed the user
      let fake = FakeBackend()
      fake.insertSelfUser()
      let rename = try keyed(.put, "/self", ["name": "Grace"], key: "k1")
      let first = try await fake.transport.send(rename)
      fake.renameUserRemotely(fake.selfUserID ?? UUID(), to: "Hopper")

      // when
      let again = try await fake.transport.send(rename)

      // then
      #expect(again == first)
      #expect(fake.user(fake.selfUserID ?? UUID())?.name == "Hopper")
      #expect(try await notifications(of: fake).count == 2)
    }

    @Test(
      "A parked repeat of an idempotency key the server answered cannot be refused: it gets the first answer"
    )
    func parkedRepeatNotRefused() async throws {
      // given: a rename went with a key and was applied; its repeat is parked
      let fake = FakeBackend()
      fake.insertSelfUser()
      let rename = try keyed(.put, "/self", ["name": "Grace"], key: "k1")
      let first = try await fake.transport.send(rename)
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))
      let sending = Task { try await fake.transport.send(rename) }
      await fake.waitForParkedRequests()
      let index = try #require(fake.parkedRequests.first)

      // when
      let refused = fake.refuseParkedRequest(index)

      // then
      #expect(!refused)
      #expect(fake.releaseParkedRequest(index))
      #expect(try await sending.value == first)
    }

    /// An injected status a repeat of an answered idempotency key meets, and whether the repeat
    /// gets the first answer instead.
    static let repeatFaults: [(status: Int, firstAnswer: Bool)] = [
      (400, true), (403, true), (404, true), (401, false), (429, false), (503, false),
    ]

    @Test(
      "An injected refusal for good is not given to a repeat of an idempotency key the server answered; other failures are",
      arguments: repeatFaults)
    func refusalOfAnsweredRepeat(fault: (status: Int, firstAnswer: Bool)) async throws {
      // given: a rename went with a key and was applied; the next call to /self meets the fault
      let fake = FakeBackend()
      fake.insertSelfUser()
      let rename = try keyed(.put, "/self", ["name": "Grace"], key: "k1")
      let first = try await fake.transport.send(rename)
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(fault.status)))

      // when
      let again = try await fake.transport.send(rename)

      // then
      #expect((again == first) == fault.firstAnswer)
      #expect(again.status == (fault.firstAnswer ? first.status : fault.status))
    }

    @Test("An injected refusal is given to a request whose idempotency key is new")
    func refusalOfNewKey() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(400)))

      // when
      let answer = try await fake.transport.send(
        try keyed(.put, "/self", ["name": "Grace"], key: "k1"))

      // then
      #expect(answer.status == 400)
      #expect(fake.user(fake.selfUserID ?? UUID())?.name != "Grace")
    }

    @Test("An idempotency key used again for another change is refused with 422, naming the key")
    func reusedKey() async throws {
      // given
      let fake = FakeBackend()
      fake.insertSelfUser()
      _ = try await fake.transport.send(try keyed(.put, "/self", ["name": "Grace"], key: "k1"))

      // when
      let reused = try await fake.transport.send(try keyed(.put, "/self", ["name": "X"], key: "k1"))

      // then
      #expect(reused.status == 422)
      #expect(try APIError.parse(reused.body).label == .idempotencyKeyReused)
      #expect(fake.user(fake.selfUserID ?? UUID())?.name == "Grace")
    }

    private func keyed(_ method: HTTPMethod, _ path: String, _ json: JSONValue, key: String) throws
      -> HTTPRequest
    {
      try HTTPRequest(
        method, RequestPath(segments: path.split(separator: "/").map(String.init)),
        headers: [HTTPHeader(Endpoint.idempotencyKeyHeader, key)], json: json)
    }

    private func notifications(of fake: FakeBackend) async throws -> [NotificationPayload] {
      guard
        case .success(.notifications(let page)) = fake.answer(
          .getNotifications(since: nil, size: 500))
      else { return [] }
      return page.elements
    }
  }
}
