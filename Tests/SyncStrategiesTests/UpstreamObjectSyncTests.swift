import ConversationParsing
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

  @Test("A message written before the self user is known is kept and sent, not dropped as local")
  func messageBeforeSelfUser() async throws {
    // given
    let make = ModelFactory()
    let author = make.selfUser()
    let group = make.conversation(creator: author)
    let stack = ModelStack.forTesting([group])
    let upstream = UpstreamObjectSync.standard()
    let message = make.message(in: group, from: author)
    try stack.ui.context.insert(message)
    try stack.ui.context.save()

    // when
    let request = await stack.sync.perform { upstream.nextRequest(in: $0, now: .zero) }

    // then
    #expect(request?.request.method == .post)
    #expect(await stack.sync.perform { $0.localChanges(of: Message.self).inserted } == [message.id])
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
}
