import FakeBackend
import Foundation
import HTTPRequest
import JSON
import LoopbackServer
import Seams
import TestSupport
import Testing
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension FakeBackendTests {
  @Suite("A lost answer over URLSession", .timeBudget(.seconds(20)))
  struct LostAnswers {
    /// How long a `PUT /self` whose answer the served fake loses takes to fail, sent after a
    /// `GET` on the same transport, against a server that waits `stall` for a body.
    static func failureDelay(reusesConnections: Bool, stall: Duration) async throws -> Duration {
      let fake = FakeBackend()
      fake.insertSelfUser(name: "Me")
      fake.addFault(.once(RequestMatcher("PUT", "/self"), .loseResponse))
      let server = try fake.serve(limits: ServerLimits(stallTimeout: stall))
      defer { Task { await server.stop() } }
      let transport = URLSessionTransport(
        configuration: .init(baseURL: server.baseURL, reusesConnections: reusesConnections),
        session: URLSession(configuration: .ephemeral))
      _ = try await transport.send(try HTTPRequest(.get, "/self"), options: SendOptions())
      let change = try HTTPRequest(.put, "/self", json: .object(["name": .string("Changed")]))
      let clock = ContinuousClock()
      let start = clock.now
      await #expect(throws: TransportError.self) {
        try await transport.send(change, options: SendOptions())
      }
      return clock.now - start
    }

    @Test("Without connection reuse, a lost answer fails the send as soon as the socket closes")
    func seenAtOnce() async throws {
      // when: the server would wait half a minute for a body that is sent again
      let delay = try await Self.failureDelay(reusesConnections: false, stall: .seconds(30))

      // then: the failure came from the closed socket, not from the server giving up
      #expect(delay < .seconds(2))
    }

    #if os(Linux)
      @Test(
        "With reuse on Linux, the platform sends the request again without its body, so the failure waits for the server's stall timeout"
      )
      func platformReplayWaits() async throws {
        // when
        let delay = try await Self.failureDelay(
          reusesConnections: true, stall: .milliseconds(600))

        // then: the day this fails, the platform no longer replays, and the limit the
        // documentation describes is gone
        #expect(delay >= .milliseconds(600))
      }
    #endif
  }
}
