import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import SyncStrategies
import TestSupport
import Testing
import Transport

/// A stack with a self user and an upstream tracker, driven by hand: no transport, the test
/// decides every outcome.
@MainActor
struct Harness {
  let stack: ModelStack
  let upstream: UpstreamObjectSync
  let make: ModelFactory
  let me: User

  init(
    _ objects: [any ModelObject] = [], upstream: UpstreamObjectSync? = nil,
    make: ModelFactory = ModelFactory()
  ) {
    self.make = make
    me = make.selfUser(name: "Me")
    stack = ModelStack.forTesting([me] + objects)
    self.upstream =
      upstream ?? .standard(retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0))
  }

  var ui: ModelContext { stack.ui.context }

  /// Edits and saves the UI context, then waits until the sync context merged the save.
  func save(_ edits: (ModelContext) throws -> Void) async throws {
    try edits(ui)
    try ui.save()
    await Quiescence.expectIdle(stack.tracker)
  }

  /// Inserts `objects` in the UI context and saves.
  func insert(_ objects: [any ModelObject]) async throws {
    try await save { context in
      for object in objects { try Self.insert(object, into: context) }
    }
  }

  private static func insert(_ object: any ModelObject, into context: ModelContext) throws {
    try context.insert(object)
  }

  /// Puts `objects` in the sync context as the server's, already synchronised, and saves.
  func seedRemote(_ objects: [any ModelObject]) async throws {
    try await stack.sync.perform { context in
      for object in objects { Self.applyRemote(object, in: context) }
      try context.save()
    }
    await Quiescence.expectIdle(stack.tracker)
  }

  private nonisolated static func applyRemote(_ object: any ModelObject, in context: ModelContext) {
    context.applyRemote(object)
  }

  /// The next request the tracker chooses at `now`.
  func next(at now: Duration = .zero) async -> UpstreamRequest? {
    let upstream = self.upstream
    return await stack.sync.perform { upstream.nextRequest(in: $0, now: now) }
  }

  /// Every request the tracker would start now, one after the other.
  func drain(at now: Duration = .zero) async -> [UpstreamRequest] {
    var requests: [UpstreamRequest] = []
    while let request = await next(at: now) { requests.append(request) }
    return requests
  }

  /// Completes `request` with `outcome` and saves the sync context.
  func complete(_ request: UpstreamRequest, _ outcome: UpstreamOutcome, at now: Duration = .zero)
    async
  {
    let upstream = self.upstream
    await stack.sync.perform { context in
      upstream.complete(request.token, with: outcome, in: context, now: now)
      _ = try? context.save()
    }
    await Quiescence.expectIdle(stack.tracker)
  }

  /// The queue at `now`.
  func queue(at now: Duration = .zero) async -> SyncQueueSnapshot {
    let upstream = self.upstream
    return await stack.sync.perform { upstream.queue(in: $0, now: now) }
  }

  /// The sync context's local changes of `type`.
  func localChanges<Object: ModelObject>(_ type: Object.Type) async -> LocalChanges<Object> {
    await stack.sync.perform { $0.localChanges(of: type) }
  }
}

extension UpstreamOutcome {
  /// A success with `json` as the body.
  static func ok(_ json: JSONValue = [:], status: Int = 200) -> UpstreamOutcome {
    .success(TransportResponse(status: status, json: json))
  }
}

extension UpstreamRequest {
  /// The request's JSON body.
  var json: JSONValue? {
    if case .json(let value)? = request.body { return value }
    return nil
  }
}
