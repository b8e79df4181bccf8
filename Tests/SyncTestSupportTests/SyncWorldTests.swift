import ConversationParsing
import EventParsing
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

@Suite("SyncWorld", .tags(.testSupport, .sync), .courier(timeBudget: .seconds(10)))
@MainActor
struct SyncWorldTests {
  @Test("Starting fetches what the backend was seeded with before the test reads anything")
  func startSettlesFirstFetch() async throws {
    // given
    let ann = Locked<UUID?>(nil)

    // when
    let world = try await SyncWorld.start { fake, _ in
      let user = fake.insertUser(name: "Ann")
      fake.requestConnectionRemotely(from: user)
      ann.withLock { $0 = user }
    }

    // then
    let requester = try #require(ann.withLock { $0 })
    #expect(world.selfUser?.name == "Me")
    #expect(world.ui.object(Connection.self, id: requester)?.status == .pending)
  }

  @Test("A connected contact, a group with it and a message reach the backend once settled")
  func groupAndMessage() async throws {
    // given
    let world = try await SyncWorld.start()
    let (ann, _) = try await world.contactWithConversation(named: "Ann")

    // when
    let group = try await world.group(named: "Lunch", members: [ann])
    try world.write("Hello", in: group)
    let queue = await world.settle()

    // then
    #expect(queue.isIdle)
    #expect(Set(world.fake.members(of: group.id)) == [world.me, ann])
    #expect(world.fake.messages(in: group.id).map(\.text) == ["Hello"])
  }

  @Test("One network switch takes the fake and the engine offline and back together")
  func networkSwitch() async throws {
    // given
    let world = try await SyncWorld.start()
    await world.setNetwork(.offline)
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }
    let offline = await world.settle()

    // when
    await world.setNetwork(.online)
    let online = await world.settle()

    // then
    #expect(offline.pending.count == 1)
    #expect(online.isIdle)
    #expect(world.fake.requests(.updateSelf, status: 200).count == 1)
  }

  @Test("Settling fails loudly when work is stuck, naming the parked request and unfired rules")
  func stuckWorkIsNamed() async throws {
    // given
    let world = try await SyncWorld.start()
    world.fake.addFault(.once(RequestMatcher(.updateSelf), .park))
    world.fake.addFault(.once(RequestMatcher(.postMessage), .status(503)))
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }
    await world.fake.waitForParkedRequests(1)

    // when, then
    await withKnownIssue {
      await world.settle()
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("stopped on work that did not move")
        && text.contains("parked request #") && text.contains("in flight")
        && text.contains("fault rule that never fired: POST /conversations/*/messages")
    }
    world.fake.releaseParkedRequest(try #require(world.fake.parkedRequests.first))
    await world.settle()
  }

  @Test(
    "Settling waits for work held up behind a busy executor, and does not take it for stuck work")
  func workBehindBusyExecutorIsNotStuck() async throws {
    // given: the executor of a merge is busy for several quiet periods before the merge can begin
    let world = try await SyncWorld.start()
    let busy = BusyExecutorActor.hold(for: .milliseconds(400))
    await busy.fulfillment(within: .seconds(2))
    let token = WorkTracker.current.enter("merge behind a busy executor", hasStarted: false)
    Task { @BusyExecutorActor in
      token.markStarted()
      token.leave()
    }

    // when
    let queue = await world.settle()

    // then: no issue was recorded, and the merge ran
    #expect(queue.isIdle)
    #expect(WorkTracker.current.isIdle)
  }

  @Test("Settling fails loudly when only the engine was told the network is gone")
  func halfOfflineIsNamed() async throws {
    // given
    let world = try await SyncWorld.start()
    await world.engine.setOnline(false)
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }

    // when, then
    await withKnownIssue {
      await world.settle()
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("the engine is offline while the fake") }
    }
    await world.setNetwork(.online)
    await world.settle()
  }

  @Test("Seeding returns what it made, and the app's engine factory and event handler are used")
  func appWiring() async throws {
    // given
    let made = Locked(0)
    let heard = Recorder<SyncEngineEvent>()

    // when
    let (world, ann) = try await SyncWorld.seeded(
      by: { fake, _ in fake.insertUser(name: "Ann") },
      makeEngine: { parts in
        made.withLock { $0 += 1 }
        return parts.makeStandardEngine()
      },
      onEvent: heard.record)

    // then
    #expect(world.fake.user(ann)?.name == "Ann")
    #expect(made.withLock { $0 } == 1)
    #expect(!world.events.elements.isEmpty)
    #expect(heard.elements == world.events.elements)
  }

  @Test("Its diagnostics hold the journal, the engine's events, the log and the running jobs")
  func diagnostics() async throws {
    // given
    let world = try await SyncWorld.start()
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }
    await world.settle()

    // when
    let files = Dictionary(
      uniqueKeysWithValues: await world.diagnostics().map { ($0.name, $0.text) })

    // then
    #expect(files.keys.sorted() == ["events.txt", "journal.txt", "log.txt", "running-jobs.txt"])
    #expect(files["journal.txt"]?.contains("PUT /self → 200") == true)
    #expect(files["events.txt"]?.contains("PUT /self") == true)
    #expect(files["running-jobs.txt"] == "")
  }
}

/// A global actor on an executor of its own, which a test can keep busy for a while without
/// blocking a thread of the cooperative pool.
@globalActor
actor BusyExecutorActor {
  static let shared = BusyExecutorActor()
  private static let executor = SerialQueueExecutor(label: "courier.test.busy-executor")

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }

  /// Keeps the executor busy for `duration` from now; the expectation is fulfilled once it is.
  static func hold(for duration: Duration) -> AsyncExpectation {
    let started = AsyncExpectation("the executor is busy")
    Task { @BusyExecutorActor in
      started.fulfill()
      block(for: duration)
    }
    return started
  }

  /// A blocking wait on purpose: it holds the actor's own queue, as a long job would.
  private nonisolated static func block(for duration: Duration) {
    Thread.sleep(
      forTimeInterval: Double(duration.components.seconds)
        + Double(duration.components.attoseconds) / 1e18)
  }
}
