import CourierAPI
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import Seams
import SyncStrategies
import TestSupport
import Testing
import Transport

/// A model stack and an upstream tracker driven by hand, with no engine: the test chooses when
/// each request goes, in what order answers come back, and what they say.
///
/// ```swift
/// let harness = TrackerHarness()
/// try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
/// let request = try #require(await harness.next())
/// await harness.complete(request, .success(.noContent))
/// ```
///
/// ``respond(to:)`` hands a request to a fake backend that shares the harness's self user, so
/// answers can also be real ones.
@MainActor
public struct TrackerHarness {
  /// The client's model stack.
  public let stack: ModelStack
  /// The tracker under test.
  public let upstream: UpstreamObjectSync
  /// Builds valid objects for the test.
  public let make: ModelFactory
  /// The self user, in the stack and in the fake backend.
  public let me: User
  /// A backend to answer requests for real, when a test wants it.
  public let fake: FakeBackend

  /// Creates a stack holding the self user and `objects`, already synchronised, and a tracker
  /// over the standard strategies with one-second backoffs and no jitter unless given one.
  public init(
    _ objects: [any ModelObject] = [], upstream: UpstreamObjectSync? = nil,
    make: ModelFactory = ModelFactory()
  ) {
    self.make = make
    me = make.selfUser(name: "Me")
    stack = ModelStack.forTesting([me] + objects)
    fake = FakeBackend()
    fake.insertSelfUser(id: me.id, name: me.name)
    self.upstream =
      upstream ?? .standard(retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0))
  }

  /// The UI context.
  public var ui: ModelContext { stack.ui.context }

  /// Applies `edits` to the UI context and saves.
  public func save(_ edits: (ModelContext) throws -> Void) throws {
    try edits(ui)
    try ui.save()
  }

  /// Inserts `objects` in the UI context and saves.
  public func insert(_ objects: [any ModelObject]) throws {
    try save { context in
      for object in objects { try Self.insert(object, into: context) }
    }
  }

  private static func insert(_ object: any ModelObject, into context: ModelContext) throws {
    try context.insert(object)
  }

  /// Puts `objects` in the sync context as the server's, already synchronised, and saves.
  public func seedRemote(_ objects: [any ModelObject]) async throws {
    try await stack.sync.perform { context in
      for object in objects { Self.applyRemote(object, in: context) }
      try context.save()
    }
  }

  private nonisolated static func applyRemote(_ object: any ModelObject, in context: ModelContext) {
    context.applyRemote(object)
  }

  /// The next request the tracker chooses at `now`.
  public func next(at now: Duration = .zero) async -> UpstreamRequest? {
    let upstream = self.upstream
    return await stack.sync.perform { upstream.nextRequest(in: $0, now: now) }
  }

  /// Every request the tracker would start now, one after the other.
  public func drain(at now: Duration = .zero) async -> [UpstreamRequest] {
    var requests: [UpstreamRequest] = []
    while let request = await next(at: now) { requests.append(request) }
    return requests
  }

  /// Completes `request` with `outcome` and saves the sync context; a failed save is recorded
  /// as an issue at the caller.
  @discardableResult
  public func complete(
    _ request: UpstreamRequest, _ outcome: UpstreamOutcome, at now: Duration = .zero,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> UpstreamCompletion {
    let upstream = self.upstream
    let (completion, saveError) = await stack.sync.perform { context in
      let completion = upstream.complete(request.token, with: outcome, in: context, now: now)
      do {
        try context.save()
        return (completion, String?.none)
      } catch {
        return (completion, "\(error)")
      }
    }
    if let saveError {
      Issue.record("The sync context did not save: \(saveError)", sourceLocation: sourceLocation)
    }
    return completion
  }

  /// Lets the fake apply `request`, then completes it as if the connection dropped before the
  /// answer arrived: the backend has the change, the tracker does not know it.
  public func loseAnswer(to request: UpstreamRequest, at now: Duration = .zero) async {
    _ = await respond(to: request)
    await complete(
      request,
      .temporary(
        BackendFailure(responseClass: .temporary, transportError: .network(.connectionLost))),
      at: now)
  }

  /// Completes `request` as refused for good with `status`, as a 4xx answer would.
  public func refuse(_ request: UpstreamRequest, status: Int = 400, at now: Duration = .zero) async
  {
    await complete(
      request, .permanent(BackendFailure(responseClass: .permanent, status: status)), at: now)
  }

  /// Hands out and answers, with the fake's answers, every request the tracker makes at `now`
  /// until it makes none; returns them in the order they went.
  @discardableResult
  public func answerAll(at now: Duration = .zero) async -> [UpstreamRequest] {
    var answered: [UpstreamRequest] = []
    while let request = await next(at: now) {
      await complete(request, await respond(to: request), at: now)
      answered.append(request)
    }
    return answered
  }

  /// The fake backend's answer to `request`, as the tracker's outcome.
  public func respond(to request: UpstreamRequest) async -> UpstreamOutcome {
    let result = await fake.handle(FakeRequest(request.request))
    return UpstreamOutcome(endpoint: request.endpoint, result: result)
  }

  /// The queue at `now`.
  public func queue(at now: Duration = .zero) async -> SyncQueueSnapshot {
    let upstream = self.upstream
    return await stack.sync.perform { upstream.queue(in: $0, now: now) }
  }

  /// The sync context's local changes of `type`.
  package func localChanges<Object: ModelObject>(_ type: Object.Type) async -> LocalChanges<Object>
  {
    await stack.sync.perform { $0.localChanges(of: type) }
  }
}

extension UpstreamRequest {
  /// The request's JSON body, if it has one.
  public var json: JSONValue? {
    if case .json(let value)? = request.body { return value }
    return nil
  }
}
