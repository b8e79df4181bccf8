import ConnectionParsing
import CourierAPI
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import TestSupport
import Testing
import Transport

/// One test's world for synchronisation: a fake backend with a self user, a fresh model stack,
/// and a sync engine between them on a manual clock.
///
/// ```swift
/// let world = try await SyncWorld.start()
/// try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }
/// let queue = await world.settle()
/// #expect(world.fake.user(world.me)?.name == "Ada")
/// ```
///
/// Every request the fake cannot match fails the test (strict mode), and `settle()` moves the
/// clock past backoffs and the fake's delays until the engine has nothing left to do.
@MainActor
public struct SyncWorld {
  /// The backend.
  public let fake: FakeBackend
  /// The client's model stack.
  public let stack: ModelStack
  /// The engine between them.
  public let engine: SyncEngine
  /// The clock the engine and the fake sleep on.
  public let clock: ManualTimeSource
  /// The self user's id.
  public let me: UUID
  /// Builds valid objects for the test.
  public let make = ModelFactory()

  /// Creates the world, lets `seedBackend` set up the backend, starts the engine and waits until
  /// the first fetch settled.
  ///
  /// - Parameters:
  ///   - upstream: The tracker with its strategies; the standard ones with one-second backoffs
  ///     and no jitter by default, so tests read round numbers.
  ///   - downstream: How the engine reads news and lists; pages of a hundred by default.
  ///   - seedBackend: Sets up the backend before the client first fetches; gets the fake and
  ///     the self user's id.
  ///   - sourceLocation: Where an unmatched request or a failed start is reported; the caller's.
  public static func start(
    upstream: UpstreamObjectSync = .standard(
      retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0)),
    downstream: DownstreamSync = DownstreamSync(),
    sourceLocation: SourceLocation = #_sourceLocation,
    seedBackend: (FakeBackend, UUID) async throws -> Void = { _, _ in }
  ) async throws -> SyncWorld {
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock) { unmatched in
      Issue.record(
        "the fake backend matched no endpoint: \(unmatched)", sourceLocation: sourceLocation)
    }
    let me = fake.insertSelfUser(name: "Me")
    try await seedBackend(fake, me)
    let stack = ModelStack.forTesting()
    let engine = SyncEngine(
      stack: stack, transport: fake.transport, upstream: upstream, downstream: downstream,
      time: clock)
    await engine.start()
    let world = SyncWorld(fake: fake, stack: stack, engine: engine, clock: clock, me: me)
    await world.settle()
    return world
  }

  /// The UI context.
  public var ui: ModelContext { stack.ui.context }

  /// The self user as the UI context sees it.
  public var selfUser: User? { ui.object(User.self, id: me) }

  /// Waits until the engine has nothing left to do by itself (moving the clock past backoffs
  /// and delays) and every merge landed, and returns the queue.
  ///
  /// It waits at most `timeout` of real time: 5 s scaled by TestSupport's `TimeoutScale`, as
  /// every TestSupport wait is (30× under `Tools/test --sanitize thread`). Work that stays the
  /// same for the engine's quiet period, scaled the same way, counts as stuck (a parked
  /// request), so a slowed-down run does not take slow work for stuck work.
  @discardableResult
  public func settle(within timeout: Duration = TimeoutScale.scaled(.seconds(5))) async
    -> SyncQueueSnapshot
  {
    let queue = await engine.settle(
      advancing: clock, timeout: timeout, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
    // The merges of what the engine saved land in the UI; a parked request may keep other
    // work running for as long as the test likes, so only the merges are waited for.
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let running = await stack.tracker.waitUntilIdle(timeout: .milliseconds(20))
      if !running.contains(where: { $0.label.hasPrefix("merge") }) { break }
    }
    return queue
  }

  /// Inserts `objects` in the UI context, applies `edits`, and saves.
  public func save(
    _ objects: [any ModelObject] = [], edits: (ModelContext) throws -> Void = { _ in }
  )
    throws
  {
    for object in objects { try insert(object) }
    try edits(ui)
    try ui.save()
  }

  private func insert(_ object: any ModelObject) throws { try ui.insert(object) }

  /// Sends `endpoint` to the fake directly, as another client of the same account would.
  @discardableResult
  public func call(_ endpoint: Endpoint) async throws -> TransportResponse {
    try await fake.transport.send(try endpoint.request())
  }

  /// Makes `user` connected with the self user on the backend (they asked, self accepted
  /// elsewhere), and pulls it.
  public func connect(_ user: UUID) async throws {
    fake.requestConnectionRemotely(from: user)
    try await call(.updateConnection(user: user, ConnectionUpdate(status: .accepted)))
    await engine.pullNotifications()
    await settle()
  }

  /// A new contact called `name`, connected with the self user, and its one-to-one conversation
  /// as the UI context sees it.
  public func contactWithConversation(named name: String = "Ann") async throws -> (
    UUID, Conversation
  ) {
    let contact = fake.insertUser(name: name)
    try await connect(contact)
    let conversation = ui.object(Connection.self, id: contact).flatMap { ui.conversation(of: $0) }
    return (contact, try #require(conversation))
  }

  /// A new group made in the UI and synchronised, with the self user and `members`.
  public func group(named name: String = "Lunch", members: [UUID] = []) async throws
    -> Conversation
  {
    let group = Conversation(
      id: ui.makeID(), kind: .group, name: name, creatorID: me,
      participantIDs: Set(members + [me]), lastEventTime: Date(timeIntervalSince1970: 1_800_000_000)
    )
    try save([group])
    await settle()
    return group
  }

  /// A new message from the self user in `conversation`, saved in the UI.
  @discardableResult
  public func write(_ text: String, in conversation: Conversation) throws -> Message {
    let message = make.message(
      in: conversation, from: User(id: me, isSelf: true, name: "Me"), text: text)
    try save([message])
    return message
  }
}
