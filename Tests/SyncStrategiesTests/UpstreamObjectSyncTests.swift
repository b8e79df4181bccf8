import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import SyncStrategies
import TestSupport
import Testing
import Transport

@Suite("UpstreamObjectSync", .tags(.sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct UpstreamObjectSyncTests {
  @Test("With no local changes there is nothing to send")
  func nothingToSend() async {
    // given
    let harness = Harness()

    // when
    let request = await harness.next()

    // then
    #expect(request == nil)
    #expect(await harness.queue().isEmpty)
  }

  @Test("A change is sent once: while it is in flight, it is not chosen again")
  func neverTwice() async throws {
    // given
    let harness = Harness()
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }

    // when
    let requests = await harness.drain()

    // then
    #expect(requests.map(\.description) == ["PUT /self"])
    #expect(requests.first?.json == ["name": "Ada"])
    #expect(await harness.queue().inFlight.map(\.keys) == [["name"]])
  }

  @Test("A success clears the keys it sent; nothing is sent again")
  func successClears() async throws {
    // given
    let harness = Harness()
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let request = try #require(await harness.next())

    // when
    await harness.complete(request, .ok())

    // then
    #expect(await harness.next() == nil)
    #expect(await harness.localChanges(User.self).isEmpty)
    #expect(await harness.queue().isEmpty)
  }

  @Test("A key changed while in flight stays dirty and is sent again with its new value")
  func changedInFlight() async throws {
    // given
    let harness = Harness()
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "First" } }
    let first = try #require(await harness.next())
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Second" } }

    // when
    let whileInFlight = await harness.next()
    await harness.complete(first, .ok())
    let second = await harness.next()

    // then
    #expect(whileInFlight == nil)
    #expect(second?.json == ["name": "Second"])
  }

  @Test("A new key changed while another is in flight is sent on its own")
  func freeKeys() async throws {
    // given
    let harness = Harness()
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    _ = try #require(await harness.next())

    // when
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.accentID = 5 } }
    let second = await harness.next()

    // then
    #expect(second?.json == ["accent_id": 5])
    #expect(second?.item.keys == ["accentID"])
  }

  @Test("A temporary failure keeps the change and retries it after the backoff")
  func temporaryFailure() async throws {
    // given
    let harness = Harness()
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())

    // when
    await harness.complete(first, .temporary("status 503"))
    let tooEarly = await harness.next(at: .milliseconds(999))
    let queue = await harness.queue(at: .milliseconds(500))
    let retried = await harness.next(at: .seconds(1))

    // then
    #expect(tooEarly == nil)
    #expect(queue.retrying.map(\.failedAttempts) == [1])
    #expect(queue.retrying.map(\.retryIn) == [.milliseconds(500)])
    #expect(retried?.json == ["name": "Ada"])
    #expect(harness.upstream.nextRetryTime == .seconds(1))
  }

  @Test("A permanent failure is reported with its reason and not retried until the object changes")
  func permanentFailure() async throws {
    // given
    let harness = Harness()
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())

    // when
    await harness.complete(first, .permanent(nil, "status 400 (bad-request)"))
    let afterFailure = await harness.next()
    let queue = await harness.queue()
    harness.upstream.reconsider([ObjectReference(.user, harness.me.id)])
    let afterReconsider = await harness.next()

    // then
    #expect(afterFailure == nil)
    #expect(queue.failed.map(\.object) == [ObjectReference(.user, harness.me.id)])
    #expect(queue.failed.map(\.reason) == ["status 400 (bad-request)"])
    #expect(afterReconsider?.json == ["name": "Ada"])
    #expect(await harness.localChanges(User.self).keys(of: harness.me.id) == [.name])
  }

  @Test("Local changes the backend cannot hear about are cleared, not kept forever")
  func unpushableCleared() async throws {
    // given
    let other = ModelFactory().user(name: "Other")
    let harness = Harness([other])

    // when
    try await harness.save { context in
      try context.update(User.self, id: harness.me.id) { $0.email = "me@example.com" }
      try context.update(User.self, id: other.id) { $0.name = "Renamed here" }
    }
    let request = await harness.next()

    // then
    #expect(request == nil)
    #expect(await harness.localChanges(User.self).isEmpty)
  }

  @Test("An object waits for the objects it depends on, and goes once they are pushed")
  func dependencies() async throws {
    // given
    let harness = Harness()
    let group = harness.make.conversation(creator: harness.me)
    let message = harness.make.message(in: group, from: harness.me)
    try await harness.insert([group, message])

    // when
    let first = await harness.drain()
    let queue = await harness.queue()
    if let request = first.first { await harness.complete(request, .ok(status: 201)) }
    let second = await harness.drain()

    // then
    #expect(first.map(\.description) == ["POST /conversations"])
    #expect(queue.blocked.map(\.item.object) == [ObjectReference(.message, message.id)])
    #expect(queue.blocked.first?.waitingFor == [ObjectReference(.conversation, group.id)])
    #expect(queue.blocked.first?.isCycle == false)
    #expect(
      second.map(\.description) == [
        "POST /conversations/\(group.id.uuidString.lowercased())/messages"
      ])
  }

  @Test("An insert in flight holds the whole object: later edits wait for it")
  func insertHoldsObject() async throws {
    // given
    let harness = Harness()
    let group = harness.make.conversation(name: "A", creator: harness.me)
    try await harness.insert([group])
    let insert = try #require(await harness.next())

    // when
    try await harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "B" } }
    let whileInserting = await harness.next()
    await harness.complete(insert, .ok(status: 201))
    let rename = await harness.next()

    // then
    #expect(whileInserting == nil)
    #expect(rename?.description == "PUT /conversations/\(group.id.uuidString.lowercased())")
    #expect(rename?.json == ["name": "B"])
  }

  @Test("A revert decision gives the change up and reports why")
  func revert() async throws {
    // given
    let harness = Harness(upstream: UpstreamObjectSync(strategies: [RevertingStrategy()]))
    try await harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let request = try #require(await harness.next())

    // when
    await harness.complete(request, .permanent(nil, "status 403"))

    // then
    #expect(await harness.localChanges(User.self).isEmpty)
    #expect(await harness.queue().failed.map(\.reason) == ["reverted: status 403"])
  }

  @Test("A dependency cycle is reported in the queue and never sent")
  func cycle() async throws {
    // given
    let make = ModelFactory()
    let ann = make.user(name: "Ann")
    let bob = make.user(name: "Bob")
    let harness = Harness(
      [ann, bob],
      upstream: UpstreamObjectSync(strategies: [CyclicStrategy(ann: ann.id, bob: bob.id)]))

    // when
    try await harness.save { context in
      try context.update(User.self, id: ann.id) { $0.name = "Ann 2" }
      try context.update(User.self, id: bob.id) { $0.name = "Bob 2" }
    }
    let request = await harness.next()
    let queue = await harness.queue()

    // then
    #expect(request == nil)
    #expect(queue.blocked.count == 2)
    #expect(queue.blocked.map(\.isCycle) == [true, true])
  }

  @Test(
    "Cycles are found however long they are, and only the objects on them",
    arguments: zip(
      [
        [("a", "b"), ("b", "a")], [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")],
        [("a", "b"), ("b", "c")], [("a", "a")],
      ],
      [["a", "b"], ["a", "b", "c"], [], ["a"]]))
  func cycleFinder(_ edges: [(String, String)], _ expected: [String]) {
    // given
    func reference(_ name: String) -> ObjectReference {
      ObjectReference(
        .user,
        UUID(
          uuidString:
            "00000000-0000-4000-8000-00000000000\(name == "a" ? 1 : name == "b" ? 2 : name == "c" ? 3 : 4)"
        ) ?? UUID())
    }
    var waits: [ObjectReference: [ObjectReference]] = [:]
    for (from, to) in edges { waits[reference(from), default: []].append(reference(to)) }

    // when
    let onCycle = UpstreamObjectSync.cycleMembers(waits)

    // then
    #expect(onCycle == Set(expected.map(reference)))
  }

  @Test(
    "Send results are classed for the tracker",
    arguments: zip(
      [
        Result<TransportResponse, TransportError>.success(TransportResponse(status: 201)),
        .success(TransportResponse(status: 503)), .success(TransportResponse(status: 429)),
        .success(TransportResponse(status: 403, json: ["label": "bad-conn-update"])),
        .failure(.network(.connectionLost)), .failure(.expired(after: .seconds(60))),
        .failure(.cancelled),
      ],
      [
        "success", "temporary", "temporary", "permanent: status 403 (bad-conn-update)", "temporary",
        "temporary", "permanent: cancelled",
      ]))
  func outcomes(_ result: Result<TransportResponse, TransportError>, _ expected: String) {
    // when
    let outcome = UpstreamOutcome(result)

    // then
    let name: String =
      switch outcome {
      case .success: "success"
      case .temporary: "temporary"
      case .permanent(_, let reason): "permanent: \(reason)"
      }
    #expect(name == expected)
  }
}

/// Pushes user names and gives up (reverts) on every refusal.
struct RevertingStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name] }

  func request(for change: UpstreamChange<User>, in context: ModelContext) throws -> HTTPRequest? {
    try HTTPRequest(.put, "/self", json: ["name": .string(change.object?.name ?? "")])
  }

  func didFailPermanently(
    _ change: UpstreamChange<User>, response: TransportResponse?, reason: String,
    in context: ModelContext
  ) -> PermanentFailureDecision {
    .revert("reverted: \(reason)")
  }
}

/// Makes Ann wait for Bob and Bob for Ann: a cycle on purpose.
struct CyclicStrategy: UpstreamStrategy {
  let ann: UUID
  let bob: UUID

  var pushableKeys: Set<User.Key> { [.name] }

  func dependencies(of change: UpstreamChange<User>, in context: ModelContext) -> [ObjectReference]
  {
    [ObjectReference(.user, change.id == ann ? bob : ann)]
  }

  func request(for change: UpstreamChange<User>, in context: ModelContext) throws -> HTTPRequest? {
    try HTTPRequest(.put, "/users/\(change.id)", json: ["name": .string(change.object?.name ?? "")])
  }
}
