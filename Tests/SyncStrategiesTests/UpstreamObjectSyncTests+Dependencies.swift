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

extension UpstreamObjectSyncTests {
  @Suite("Objects that wait for others")
  @MainActor
  struct Dependencies {
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

    @Test("A group waits for a participant's connection to be accepted on the backend")
    func groupWaitsForAcceptance() async throws {
      // given: Ann asked to connect; accepting and making a group with her go in one save
      let harness = TrackerHarness()
      let ann = harness.make.user(name: "Ann")
      let pending = harness.make.connection(from: harness.me, to: ann, status: .pending)
      try await harness.seedRemote([ann, pending])
      let group = harness.make.conversation(creator: harness.me, participants: [ann])
      try harness.save { context in
        try context.update(Connection.self, id: ann.id) { $0.status = .accepted }
        try context.insert(group)
      }

      // when
      let first = await harness.drain()
      let queue = await harness.queue()

      // then
      #expect(first.map(\.endpoint.route) == [.updateConnection])
      #expect(queue.blocked.map(\.item.object) == [group.reference])
      #expect(queue.blocked.first?.waitingFor == [pending.reference])
    }

    @Test("A group with someone asked to connect in the same save names that connection once")
    func groupWaitsForNewConnection() async throws {
      // given
      let harness = TrackerHarness()
      let (request, group) = try await Self.groupWithAnnAskedToConnect(in: harness)
      try harness.insert([request, group])

      // when
      let first = await harness.drain()
      let queue = await harness.queue()

      // then
      #expect(first.map(\.endpoint.route) == [.requestConnection])
      #expect(queue.blocked.first?.waitingFor == [request.reference])
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
      await harness.complete(
        post, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
      let queue = await harness.queue()

      // then
      #expect(queue.waitingOnFailure.map(\.item.object) == [message.reference])
      #expect(queue.waitingOnFailure.map(\.failedObject) == [group.reference])
      #expect(queue.waitingOnFailure.map(\.reason) == ["status 403"])
      #expect(queue.blocked.isEmpty)
      #expect(queue.isIdle)
      #expect(await harness.next() == nil)
    }

    @Test(
      "A change that waits for an object waiting on a failure waits on that failure too, not blocked"
    )
    func waitingOnFailureThroughAnother() async throws {
      // given: a group with Ann, whom the user asked to connect, and a message in it; the
      // backend refuses the request to connect for good
      let harness = TrackerHarness()
      let (request, group) = try await Self.groupWithAnnAskedToConnect(in: harness)
      let message = harness.make.message(in: group, from: harness.me)
      try harness.insert([request, group, message])
      let post = try #require(await harness.next())

      // when
      await harness.complete(
        post, .permanent(BackendFailure(responseClass: .permanent, status: 400)))
      let queue = await harness.queue()

      // then
      #expect(post.endpoint.route == .requestConnection)
      #expect(queue.waitingOnFailure.map(\.item.object) == [group.reference, message.reference])
      #expect(queue.waitingOnFailure.map(\.failedObject) == [request.reference, request.reference])
      #expect(queue.blocked.isEmpty)
      #expect(queue.isIdle)
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
      await harness.refuse(first)

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

    /// Ann, on the backend, the user's request to connect to her, and a group with her; the
    /// request and the group are not inserted yet.
    static func groupWithAnnAskedToConnect(
      in harness: TrackerHarness
    ) async throws -> (request: Connection, group: Conversation) {
      let ann = harness.make.user(name: "Ann")
      try await harness.seedRemote([ann])
      let request = harness.make.connection(from: harness.me, to: ann, status: .sent)
      return (request, harness.make.conversation(creator: harness.me, participants: [ann]))
    }
  }
}
