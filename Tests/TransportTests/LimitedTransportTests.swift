import FakeBackend
import Foundation
import HTTPRequest
import Seams
import TestSupport
import Testing
import Transport

@Suite("LimitedTransport", .tags(.transport), .courier(timeBudget: .seconds(5)))
struct LimitedTransportTests {
  let clock = ManualTimeSource()
  let fake: FakeBackend
  /// The fake, one request at a time, waits measured on the test clock.
  let transport: LimitedTransport

  init() {
    fake = FakeBackend(time: clock)
    fake.insertSelfUser()
    transport = fake.transport.limited(to: 1, time: clock)
  }

  @Test("A request that waits for a slot past its expiry is refused as expired and never sent")
  func expiryWhileQueued() async throws {
    // when
    let run = await QueuedExpiry.run(
      on: transport, load: { transport.load }, fake: fake, clock: clock, expiry: .seconds(3),
      sleepers: 1)

    // then
    #expect(throws: TransportError.expired(after: .seconds(3))) { try run.outcome.get() }
    #expect(run.loadAfterExpiry == (inFlight: 1, queued: 0))
    #expect(run.firstStatus == 200)
    #expect(fake.requests("GET", "/users/*").isEmpty)
  }

  @Test("A request that gets a slot in time is sent, and its wait starts no timer when one is free")
  func slotInTime() async throws {
    // when
    let response = try await transport.send(try HTTPRequest(.get, "/self"), expiry: .seconds(3))

    // then
    #expect(response.status == 200)
    #expect(clock.pendingSleeps.isEmpty)
    #expect(transport.load == (inFlight: 0, queued: 0))
  }
}
