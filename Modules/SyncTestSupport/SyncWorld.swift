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

/// One test's world for synchronisation: a fake backend with a self user, a model stack, and a
/// sync engine between them on a manual clock.
///
/// ```swift
/// let world = try await SyncWorld.start()
/// try world.save { try $0.update(User.self, id: world.me) { $0.name = "Ada" } }
/// await world.settle()
/// #expect(world.fake.requests(.updateSelf, status: 200).count == 1)
/// ```
///
/// It can take the app's own stack, the app's way of making its engine, and the app's event
/// handler, so that a test runs the app's wiring against the fake. Every request the fake cannot
/// match fails the test (strict mode); ``setNetwork(_:)`` takes the fake and the engine offline
/// and back together; ``settle(within:allowing:sourceLocation:)`` moves the clock past
/// backoffs and delays until the engine has nothing left to do, and fails the test, naming what
/// is left, when it cannot get there.
@MainActor
public struct SyncWorld {
  /// What the world hands an engine factory: the parts an app's engine is made of.
  public struct EngineParts: Sendable {
    /// The model stack the engine syncs.
    public let stack: ModelStack
    /// The fake backend's transport.
    public let transport: any TransportSession
    /// The manual clock the fake and the engine sleep on.
    public let clock: ManualTimeSource
    /// The upstream tracker the world was started with.
    public let upstream: UpstreamObjectSync
    /// The downstream reader the world was started with.
    public let downstream: DownstreamSync
    /// The event handler to give the engine: it records each event in ``SyncWorld/events`` and
    /// then calls the app's handler.
    public let onEvent: @Sendable (SyncEngineEvent) -> Void

    /// The engine Courier makes from these parts when the test gives no factory.
    public func makeStandardEngine() -> SyncEngine {
      SyncEngine(
        stack: stack, transport: transport, upstream: upstream, downstream: downstream,
        time: clock, onEvent: onEvent)
    }
  }

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
  /// Every event the engine reported, in order.
  public let events: Recorder<SyncEngineEvent>
  /// Builds valid objects for the test.
  public let make = ModelFactory()

  /// Creates the world, lets `seedBackend` set up the backend, starts the engine and waits until
  /// the first fetch settled.
  ///
  /// - Parameters:
  ///   - stack: The app's model stack; a fresh in-memory one by default.
  ///   - upstream: The tracker with its strategies; the standard ones with one-second backoffs
  ///     and no jitter by default, so tests read round numbers.
  ///   - downstream: How the engine reads news and lists; pages of a hundred by default.
  ///   - sourceLocation: Where an unmatched request or a failed start is reported; the caller's.
  ///   - seedBackend: Sets up the backend before the client first fetches; gets the fake and
  ///     the self user's id. A trailing closure is this one.
  ///   - makeEngine: How the app makes its engine from the world's parts; Courier's standard
  ///     engine by default. Give `seedBackend` by its label beside it.
  ///   - onEvent: The app's event handler, called after the world records each event.
  public static func start(
    stack: ModelStack? = nil,
    upstream: UpstreamObjectSync = .standard(
      retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0)),
    downstream: DownstreamSync = DownstreamSync(),
    sourceLocation: SourceLocation = #_sourceLocation,
    seedBackend: (FakeBackend, UUID) async throws -> Void = { _, _ in },
    makeEngine: (EngineParts) -> SyncEngine = { $0.makeStandardEngine() },
    onEvent: @escaping @Sendable (SyncEngineEvent) -> Void = { _ in }
  ) async throws -> SyncWorld {
    try await seeded(
      stack: stack, upstream: upstream, downstream: downstream, sourceLocation: sourceLocation,
      by: seedBackend, makeEngine: makeEngine, onEvent: onEvent
    ).world
  }

  /// Creates and starts the world as `start` does, and returns what `seeding` returned beside it,
  /// such as the ids of the users it made.
  ///
  /// ```swift
  /// let (world, ann) = try await SyncWorld.seeded { fake, _ in fake.insertUser(name: "Ann") }
  /// ```
  public static func seeded<Seeded>(
    stack: ModelStack? = nil,
    upstream: UpstreamObjectSync = .standard(
      retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0)),
    downstream: DownstreamSync = DownstreamSync(),
    sourceLocation: SourceLocation = #_sourceLocation,
    by seeding: (FakeBackend, UUID) async throws -> Seeded,
    makeEngine: (EngineParts) -> SyncEngine = { $0.makeStandardEngine() },
    onEvent: @escaping @Sendable (SyncEngineEvent) -> Void = { _ in }
  ) async throws -> (world: SyncWorld, seeded: Seeded) {
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock) { unmatched in
      Issue.record(
        "the fake backend matched no endpoint: \(unmatched)", sourceLocation: sourceLocation)
    }
    let me = fake.insertSelfUser(name: "Me")
    let seeded = try await seeding(fake, me)
    let stack = stack ?? ModelStack.forTesting()
    let events = Recorder<SyncEngineEvent>()
    let parts = EngineParts(
      stack: stack, transport: fake.transport, clock: clock, upstream: upstream,
      downstream: downstream,
      onEvent: { event in
        events.append(event)
        onEvent(event)
      })
    let engine = makeEngine(parts)
    await engine.start()
    let world = SyncWorld(
      fake: fake, stack: stack, engine: engine, clock: clock, me: me, events: events)
    await world.settle(sourceLocation: sourceLocation)
    return (world, seeded)
  }

  /// The UI context.
  public var ui: ModelContext { stack.ui.context }

  /// The self user as the UI context sees it.
  public var selfUser: User? { ui.object(User.self, id: me) }

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
