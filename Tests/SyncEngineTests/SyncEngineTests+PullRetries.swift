import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport

extension SyncEngineTests {
  /// A pull that a lost connection or a briefly unavailable backend cut short, while the engine
  /// stays online, is pulled again on the engine's clock with backoff: the news it missed do not
  /// wait for the next push.
  @Suite("Pull retries")
  @MainActor
  struct PullRetries {
    /// How a pull is cut short while the device stays online.
    enum Cut: String, CaseIterable, CustomTestStringConvertible {
      case connectionLost = "the connection lost"
      case timedOut = "a timeout"
      case unavailable = "a 503 the transport's own retries did not outlast"

      var fault: Fault {
        switch self {
        case .connectionLost: .network(.connectionLost)
        case .timedOut: .network(.timedOut)
        case .unavailable: .status(503)
        }
      }

      var testDescription: String { rawValue }
    }

    /// A started world where Ann added the self user to her group "Lunch", which only the news
    /// tell, with an empty journal.
    static func worldWithNews() async throws -> (SyncWorld, group: UUID) {
      let world = try await SyncWorld.start()
      let ann = world.fake.insertUser(name: "Ann")
      let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [])
      world.fake.addMembersRemotely([world.me], to: group, by: ann)
      // The journal then counts only the pulls of the test.
      world.fake.resetJournalAndFaults()
      return (world, group)
    }

    @Test(
      "A pull cut short while online is pulled again on the engine's clock and applies the news",
      arguments: Cut.allCases)
    func pulledAgain(cut: Cut) async throws {
      // given
      let (world, group) = try await Self.worldWithNews()
      world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), cut.fault))
      await world.engine.pullNotifications()
      #expect(world.ui.object(Conversation.self, id: group) == nil)

      // when
      _ = await world.settle()

      // then
      #expect(world.ui.object(Conversation.self, id: group)?.name == "Lunch")
      #expect(await world.engine.isOnline)
      #expect(world.fake.requests("GET", "/notifications").count == 2)
    }

    @Test(
      "A pull the backend asked to wait with Retry-After is pulled again no sooner than asked",
      arguments: zip([429, 503], [30, 45]))
    func honoursRetryAfter(status: Int, seconds: Int) async throws {
      // given
      let (world, group) = try await Self.worldWithNews()
      world.fake.addFault(
        .once(RequestMatcher("GET", "/notifications"), .status(status, retryAfter: seconds)))
      let start = world.clock.now()
      await world.engine.pullNotifications()

      // when
      _ = await world.settle()

      // then
      #expect(world.clock.now() - start >= .seconds(seconds))
      #expect(world.fake.requests("GET", "/notifications").count == 2)
      #expect(world.ui.object(Conversation.self, id: group)?.name == "Lunch")
    }

    @Test("The pulls again back off, and stop after the policy's attempts until coming online")
    func backsOffAndStops() async throws {
      // given
      let (world, group) = try await Self.worldWithNews()
      let policy = SyncEngine.defaultPullRetryPolicy
      world.fake.addFault(
        .always(RequestMatcher("GET", "/notifications"), .network(.connectionLost)))
      let start = world.clock.now()
      await world.engine.pullNotifications()

      // when
      _ = await world.settle()

      // then
      let pulls = world.fake.requests("GET", "/notifications")
      #expect(pulls.count == policy.maxAttempts)
      let shortestWaits = (1..<policy.maxAttempts).map {
        policy.delay(afterAttempt: $0, unit: 0, retryAfter: nil)
      }
      #expect(world.clock.now() - start >= shortestWaits.reduce(.zero, +))
      world.fake.resetJournalAndFaults()
      await world.engine.setOnline(false)
      await world.engine.setOnline(true)
      _ = await world.settle()
      #expect(world.ui.object(Conversation.self, id: group)?.name == "Lunch")
    }

    @Test("A pull that reads to the end starts the count of attempts again")
    func countStartsAgain() async throws {
      // given: a pull cut short, pulled again to the end
      let (world, _) = try await Self.worldWithNews()
      let policy = SyncEngine.defaultPullRetryPolicy
      world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .network(.timedOut)))
      await world.engine.pullNotifications()
      _ = await world.settle()
      world.fake.resetJournalAndFaults()
      world.fake.addFault(
        .always(RequestMatcher("GET", "/notifications"), .network(.connectionLost)))

      // when
      await world.engine.pullNotifications()
      _ = await world.settle()

      // then
      #expect(world.fake.requests("GET", "/notifications").count == policy.maxAttempts)
    }

    @Test(
      "A pull ended by a page that cannot be read or by a refusal is not pulled again on the clock",
      arguments: [Fault.malformedBody, .status(403)])
    func unreadablePageWaits(fault: Fault) async throws {
      // given
      let (world, group) = try await Self.worldWithNews()
      world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), fault))
      expectLoggedError(containing: "could not apply")
      await world.engine.pullNotifications()

      // when
      _ = await world.settle()

      // then
      #expect(world.fake.requests("GET", "/notifications").count == 1)
      #expect(world.ui.object(Conversation.self, id: group) == nil)
    }

    @Test("A stopped engine pulls nothing again on the clock")
    func stoppedEngineWaits() async throws {
      // given
      let (world, _) = try await Self.worldWithNews()
      world.fake.addFault(
        .once(RequestMatcher("GET", "/notifications"), .network(.connectionLost)))
      await world.engine.pullNotifications()

      // when
      await world.engine.stop()
      world.clock.advance(by: .seconds(600))
      _ = await world.settle()

      // then
      #expect(world.fake.requests("GET", "/notifications").count == 1)
    }
  }
}
