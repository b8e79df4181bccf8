import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import SyncEngine
import TestSupport
import Testing
import Transport

/// One test's world: a fake backend with a self user, a fresh stack, and an engine between them
/// on a manual clock.
@MainActor
struct SyncWorld {
  let fake: FakeBackend
  let stack: ModelStack
  let engine: SyncEngine
  let clock: ManualTimeSource
  let me: UUID
  let make = ModelFactory()

  /// Starts the engine and waits until the first fetch settled.
  static func start(seedBackend: (FakeBackend, UUID) async throws -> Void = { _, _ in })
    async throws
    -> SyncWorld
  {
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock)
    let me = fake.insertSelfUser(name: "Me")
    try await seedBackend(fake, me)
    let stack = ModelStack.forTesting()
    let engine = SyncEngine(stack: stack, transport: fake.transport, time: clock)
    await engine.start()
    await Quiescence.expectIdle(stack.tracker)
    return SyncWorld(fake: fake, stack: stack, engine: engine, clock: clock, me: me)
  }

  var ui: ModelContext { stack.ui.context }

  /// Waits until every job of the stack and the engine finished.
  func settle(within timeout: Duration = .seconds(2)) async {
    await Quiescence.expectIdle(stack.tracker, within: timeout)
  }

  /// Sends a request to the fake directly, as another client would.
  func backend(_ method: HTTPMethod, _ path: RequestPath, json: JSONValue? = nil) async throws
    -> TransportResponse
  {
    let request =
      try json.map { try HTTPRequest(method, path, json: $0) } ?? HTTPRequest(method, path)
    return try await fake.transport.send(request)
  }

  /// Makes `user` connected with the self user on the backend, and pulls it.
  func connect(_ user: UUID) async throws {
    fake.requestConnectionRemotely(from: user)
    _ = try await backend(.put, "/connections/\(user)", json: ["status": "accepted"])
    await engine.pullNotifications()
    await settle()
  }

  /// Inserts `objects` in the UI context and saves.
  func save(_ objects: [any ModelObject] = [], edits: (ModelContext) throws -> Void = { _ in })
    throws
  {
    for object in objects { try insert(object) }
    try edits(ui)
    try ui.save()
  }

  private func insert(_ object: any ModelObject) throws { try ui.insert(object) }
}
