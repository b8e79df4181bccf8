import CourierAPI
import Foundation
import JSON
import Models
import ModelsTestSupport
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport
import UserParsing

@Suite("UpstreamObjectSync", .tags(.sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct UpstreamObjectSyncTests {
  @Test("With no local changes there is nothing to send")
  func nothingToSend() async {
    // given
    let harness = TrackerHarness()

    // when
    let request = await harness.next()

    // then
    #expect(request == nil)
    #expect(await harness.queue().isEmpty)
  }

  @Test("A change is sent once: while it is in flight, it is not chosen again")
  func neverTwice() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }

    // when
    let requests = await harness.drain()

    // then
    #expect(requests.map(\.description) == ["PUT /self"])
    #expect(requests.first?.json == ["name": "Ada"])
    #expect(await harness.queue().inFlight.map(\.keys.names) == [["name"]])
  }

  @Test("A success clears the keys it sent; nothing is sent again")
  func successClears() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let request = try #require(await harness.next())

    // when
    let completion = await harness.complete(request, .success(.noContent))

    // then
    #expect(completion == .settled(harness.me.reference))
    #expect(await harness.next() == nil)
    #expect(await harness.localChanges(User.self).isEmpty)
    #expect(await harness.queue().isEmpty)
  }

  @Test("A key changed while in flight is not sent again until its request is answered")
  func changedInFlight() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "First" } }
    let first = try #require(await harness.next())
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Second" } }

    // when
    let whileInFlight = await harness.next()
    await harness.complete(first, .success(.noContent))
    let second = await harness.next()

    // then
    #expect(whileInFlight == nil)
    #expect(second?.json == ["name": "Second"])
  }

  @Test("A key changed while another is in flight goes in a request of its own")
  func freeKeys() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    _ = try #require(await harness.next())

    // when
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.accentID = 5 } }
    let second = await harness.next()

    // then
    #expect(second?.json == ["accent_id": 5])
    #expect(second?.item.keys.typed(User.self) == [.accentID])
  }

  @Test("An answer settles only its own request's keys; the object's other requests stay in flight")
  func answerSettlesOwnKeys() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "First" } }
    let name = try #require(await harness.next())
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.accentID = 5 } }
    let accent = try #require(await harness.next())
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Second" } }

    // when
    await harness.complete(accent, .success(.noContent))
    let afterAccent = await harness.next()
    let queue = await harness.queue()

    // then
    #expect(afterAccent == nil, "a second name request went while the first was in flight")
    #expect(queue.inFlight.map(\.keys.names) == [["name"]])
    #expect(await harness.localChanges(User.self).keys(of: harness.me.id) == [.name])
    await harness.complete(name, .success(.noContent))
    #expect(await harness.next()?.json == ["name": "Second"])
  }

  @Test("Answers that come back newest first still leave the backend on the last value")
  func newestFirst() async throws {
    // given
    let harness = TrackerHarness()
    var requests: [UpstreamRequest] = []
    for name in ["One", "Two", "Three"] {
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = name } }
      requests += await harness.drain()
    }

    // when
    while let request = requests.popLast() {
      await harness.complete(request, await harness.respond(to: request))
      requests += await harness.drain()
    }

    // then
    #expect(harness.fake.user(harness.me.id)?.name == "Three")
    #expect(await harness.localChanges(User.self).isEmpty)
  }

  @Test("A temporary failure keeps the change and retries it after the backoff")
  func temporaryFailure() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())

    // when
    let completion = await harness.complete(
      first, .temporary(BackendFailure(responseClass: .temporary, status: 503)))
    let tooEarly = await harness.next(at: .milliseconds(999))
    let queue = await harness.queue(at: .milliseconds(500))
    let retried = await harness.next(at: .seconds(1))

    // then
    #expect(tooEarly == nil)
    #expect(queue.retrying.map(\.failedAttempts) == [1])
    #expect(queue.retrying.map(\.retryIn) == [.milliseconds(500)])
    #expect(retried?.json == ["name": "Ada"])
    guard case .retrying(_, let wait, _) = completion else {
      Issue.record("expected a retry, got \(completion)")
      return
    }
    #expect(wait == .seconds(1))
  }

  @Test("Retry-After is honoured for a POST too: the backoff waits at least as long as asked")
  func retryAfterForPost() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    try harness.insert([group])
    let post = try #require(await harness.next())
    let answer = TransportResponse(
      status: 429, json: ["code": 429, "label": "too-many", "message": "slow down"],
      headers: ["Retry-After": "30"])

    // when
    let outcome = UpstreamOutcome(endpoint: post.endpoint, result: .success(answer))
    await harness.complete(post, outcome)
    let queue = await harness.queue()

    // then
    #expect(post.request.method == .post)
    #expect(queue.retrying.map(\.retryIn) == [.seconds(30)])
    #expect(await harness.next(at: .seconds(29)) == nil)
    #expect(await harness.next(at: .seconds(30))?.description == "POST /conversations")
  }

  @Test("A permanent failure is kept in the change log with its reason and status, and not retried")
  func permanentFailure() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())
    let refusal = BackendFailure(
      responseClass: .permanent, status: 400,
      error: APIError(code: 400, label: .badRequest, message: "no"))

    // when
    await harness.complete(first, .permanent(refusal))
    let afterFailure = await harness.next()
    let queue = await harness.queue()
    let log = await harness.localChanges(User.self)

    // then
    #expect(afterFailure == nil)
    #expect(queue.failed.map(\.object) == [harness.me.reference])
    #expect(queue.failed.map(\.reason) == ["status 400 (bad-request): no"])
    #expect(queue.failed.map(\.status) == [400])
    #expect(queue.isIdle)
    #expect(log.failure(of: harness.me.id)?.label == "bad-request")
    #expect(log.keys(of: harness.me.id) == [.name])
  }

  @Test("Changing a refused object again sends it again")
  func changeAfterFailure() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())
    await harness.complete(
      first, .permanent(BackendFailure(responseClass: .permanent, status: 400)))

    // when
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada Lovelace" } }
    let next = await harness.next()

    // then
    #expect(next?.json == ["name": "Ada Lovelace"])
  }

  @Test("Retrying a refused change sends it again")
  func retryFailed() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())
    await harness.complete(
      first, .permanent(BackendFailure(responseClass: .permanent, status: 400)))
    let upstream = harness.upstream
    let me = harness.me.reference

    // when
    let retried = await harness.stack.sync.perform { upstream.retryFailedChange(of: me, in: $0) }
    let again = await harness.next()

    // then
    #expect(retried)
    #expect(again?.json == ["name": "Ada"])
  }

  @Test("Discarding a refused update gives the keys the backend's values back")
  func discardUpdate() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let first = try #require(await harness.next())
    await harness.complete(
      first, .permanent(BackendFailure(responseClass: .permanent, status: 400)))
    let upstream = harness.upstream
    let me = harness.me.reference

    // when
    let discarded = await harness.stack.sync.perform { context in
      let discarded = upstream.discardFailedChange(of: me, in: context)
      try? context.save()
      return discarded
    }
    await Quiescence.expectIdle(harness.stack.tracker)

    // then
    #expect(discarded)
    #expect(harness.ui.object(User.self, id: harness.me.id)?.name == "Me")
    #expect(await harness.localChanges(User.self).isEmpty)
    #expect(await harness.queue().isEmpty)
  }

  @Test("Local changes the backend cannot hear about are cleared, not kept forever")
  func unpushableCleared() async throws {
    // given
    let other = ModelFactory().user(name: "Other")
    let harness = TrackerHarness([other])

    // when
    try harness.save { context in
      try context.update(User.self, id: harness.me.id) { $0.email = "me@example.com" }
      try context.update(User.self, id: other.id) { $0.name = "Renamed here" }
    }
    let request = await harness.next()

    // then
    #expect(request == nil)
    #expect(await harness.localChanges(User.self).isEmpty)
  }

  @Test("An object waits for the objects it needs, and goes once they exist on the backend")
  func dependencies() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    let message = harness.make.message(in: group, from: harness.me)
    try harness.insert([group, message])

    // when
    let first = await harness.drain()
    let queue = await harness.queue()
    if let request = first.first { await harness.complete(request, .success(.noContent)) }
    let second = await harness.drain()

    // then
    #expect(first.map(\.description) == ["POST /conversations"])
    #expect(queue.blocked.map(\.item.object) == [message.reference])
    #expect(queue.blocked.first?.waitingFor == [group.reference])
    #expect(queue.blocked.first?.isCycle == false)
    #expect(
      second.map(\.description) == ["POST /conversations/\(group.id.lowercasedText)/messages"])
  }

  @Test("A change that needs an object refused for good waits on that failure, visibly")
  func waitingOnFailure() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    let message = harness.make.message(in: group, from: harness.me)
    try harness.insert([group, message])
    let post = try #require(await harness.next())

    // when
    await harness.complete(post, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
    let queue = await harness.queue()

    // then
    #expect(queue.waitingOnFailure.map(\.item.object) == [message.reference])
    #expect(queue.waitingOnFailure.map(\.failedObject) == [group.reference])
    #expect(queue.waitingOnFailure.map(\.reason) == ["status 403"])
    #expect(queue.blocked.isEmpty)
    #expect(queue.isIdle)
    #expect(await harness.next() == nil)
  }

  @Test("A message refused for good blocks nothing: the later ones go, in order")
  func failedMessageSkipped() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    try await harness.seedRemote([group])
    let messages = ["refused", "second", "third"].map {
      harness.make.message(in: group, from: harness.me, text: $0)
    }
    try harness.insert(messages)
    let first = try #require(await harness.next())
    await harness.complete(
      first, .permanent(BackendFailure(responseClass: .permanent, status: 400)))

    // when
    var texts: [String] = []
    while let request = await harness.next() {
      texts.append(request.json?["text"]?.stringValue ?? "?")
      await harness.complete(request, .success(.noContent))
    }

    // then
    #expect(first.json?["text"] == "refused")
    #expect(texts == ["second", "third"])
    #expect(await harness.queue().failed.map(\.object) == [messages[0].reference])
  }

  @Test("An insert in flight holds the whole object: later edits wait for it")
  func insertHoldsObject() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(name: "A", creator: harness.me)
    try harness.insert([group])
    let insert = try #require(await harness.next())

    // when
    try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "B" } }
    let whileInserting = await harness.next()
    await harness.complete(insert, .success(.noContent))
    let rename = await harness.next()

    // then
    #expect(whileInserting == nil)
    #expect(rename?.description == "PUT /conversations/\(group.id.lowercasedText)")
    #expect(rename?.json == ["name": "B"])
  }

  @Test("A request that carries only some of the changed keys leaves the rest for the next one")
  func partialCarry() async throws {
    // given
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    let group = harness.make.conversation(name: "A", creator: harness.me)
    try await harness.seedRemote([ann, group])
    try harness.save { context in
      try context.update(Conversation.self, id: group.id) {
        $0.name = "B"
        $0.participantIDs.insert(ann.id)
      }
    }

    // when
    let requests = await harness.drain()

    // then
    #expect(requests.map(\.item.keys.names) == [["name"], ["participantIDs"]])
    #expect(requests.map { $0.request.method } == [.put, .post])
    #expect(
      await harness.localChanges(Conversation.self).keys(of: group.id) == [.name, .participantIDs])
  }

  @Test("Leaving a group sends DELETE /conversations/{id}/members for the self user")
  func leaveGroup() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    try await harness.seedRemote([group])
    try harness.save { try $0.delete(Conversation.self, id: group.id) }

    // when
    let request = try #require(await harness.next())
    await harness.complete(request, .success(.noContent))

    // then
    #expect(request.description == "DELETE /conversations/\(group.id.lowercasedText)/members")
    #expect(request.json == ["users": [.string(harness.me.id.lowercasedText)]])
    #expect(await harness.localChanges(Conversation.self).isEmpty)
  }

  @Test("Deleting an own message deletes it for everyone; a 404 means it is already gone")
  func deleteMessage() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    let message = harness.make.message(in: group, from: harness.me, deliveryState: .sent)
    try await harness.seedRemote([group, message])
    try harness.save { try $0.delete(Message.self, id: message.id) }

    // when
    let request = try #require(await harness.next())
    let completion = await harness.complete(
      request, .permanent(BackendFailure(responseClass: .permanent, status: 404)))

    // then
    #expect(
      request.description
        == "DELETE /conversations/\(group.id.lowercasedText)/messages/\(message.id.lowercasedText)")
    #expect(completion == .settled(message.reference))
    #expect(await harness.localChanges(Message.self).isEmpty)
  }

  @Test("A message deleted while its insert is in flight is deleted after the insert is answered")
  func deleteWaitsForInsert() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(creator: harness.me)
    try await harness.seedRemote([group])
    let message = harness.make.message(in: group, from: harness.me)
    try harness.insert([message])
    let post = try #require(await harness.next())
    try harness.save { try $0.delete(Message.self, id: message.id) }

    // when
    let whileInFlight = await harness.next()
    await harness.complete(post, .success(.noContent))
    let delete = await harness.next()

    // then
    #expect(whileInFlight == nil)
    #expect(delete?.request.method == .delete)
  }

  @Test("A revert decision gives the change up: its keys take the backend's values back")
  func revert() async throws {
    // given
    let harness = TrackerHarness(upstream: UpstreamObjectSync(strategies: [RevertingStrategy()]))
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let request = try #require(await harness.next())

    // when
    let completion = await harness.complete(
      request, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
    await Quiescence.expectIdle(harness.stack.tracker)

    // then
    #expect(completion == .reverted(harness.me.reference, reason: "reverted: status 403"))
    #expect(await harness.localChanges(User.self).isEmpty)
    #expect(harness.ui.object(User.self, id: harness.me.id)?.name == "Me")
  }

  @Test("A strategy whose request carries none of the changed keys is reported, not looped on")
  func carriesNothing() async throws {
    // given
    let harness = TrackerHarness(
      upstream: UpstreamObjectSync(strategies: [CarryingNothingStrategy()]))
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }

    // when
    let request = await harness.next()

    // then
    #expect(request == nil)
    #expect(
      await harness.queue().failed.map(\.reason) == [
        "the strategy's request carries none of the changed keys"
      ])
  }

  @Test("A dependency cycle is reported in the queue and never sent")
  func cycle() async throws {
    // given
    let make = ModelFactory()
    let ann = make.user(name: "Ann")
    let bob = make.user(name: "Bob")
    let harness = TrackerHarness(
      [ann, bob],
      upstream: UpstreamObjectSync(strategies: [CyclicStrategy(ann: ann.id, bob: bob.id)]))

    // when
    try harness.save { context in
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
        [(1, 2), (2, 1)], [(1, 2), (2, 3), (3, 1), (4, 1)], [(1, 2), (2, 3)], [(1, 1)],
      ] as [[(UInt64, UInt64)]],
      [[1, 2], [1, 2, 3], [], [1]] as [[UInt64]]))
  func cycleFinder(_ edges: [(UInt64, UInt64)], _ expected: [UInt64]) {
    // given
    func reference(_ number: UInt64) -> ObjectReference { ObjectReference(.user, UUID(number)) }
    var waits: [ObjectReference: [ObjectReference]] = [:]
    for (from, to) in edges { waits[reference(from), default: []].append(reference(to)) }

    // when
    let onCycle = UpstreamObjectSync.cycleMembers(waits)

    // then
    #expect(onCycle == Set(expected.map(reference)))
  }
}

/// Pushes user names and gives up (reverts) on every refusal.
struct RevertingStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name] }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(
      .updateSelf(SelfUpdate(name: change.object?.name)), carrying: [.name], sent: change.object)
  }

  func didFailPermanently(
    _ sent: SentChange<User>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    .revert("reverted: \(failure)")
  }
}

/// Builds a request that carries none of the keys it was asked to push: a broken strategy.
struct CarryingNothingStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name] }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(.updateSelf(SelfUpdate()), carrying: [], sent: change.object)
  }
}

/// Makes Ann wait for Bob and Bob for Ann: a cycle on purpose.
struct CyclicStrategy: UpstreamStrategy {
  let ann: UUID
  let bob: UUID

  var pushableKeys: Set<User.Key> { [.name] }

  func dependencies(of change: UpstreamChange<User>, in context: ModelContext) -> [SyncDependency] {
    [.after(ObjectReference(.user, change.id == ann ? bob : ann))]
  }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(.getUser(id: change.id), carrying: [.name], sent: change.object)
  }
}
