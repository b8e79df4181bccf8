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
  @Suite("Deletions")
  @MainActor
  struct Deletions {
    /// A sent message of a group, which the user deleted, and the deletion's request, out.
    static func sentMessageBeingDeleted() async throws -> (
      TrackerHarness, Conversation, Message, UpstreamRequest
    ) {
      let harness = TrackerHarness()
      let group = harness.make.conversation(creator: harness.me)
      let message = harness.make.message(in: group, from: harness.me, deliveryState: .sent)
      try await harness.seedRemote([group, message])
      try harness.save { try $0.delete(Message.self, id: message.id) }
      let deletion = try #require(await harness.next())
      return (harness, group, message, deletion)
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
          == "DELETE /conversations/\(group.id.lowercasedText)/messages/\(message.id.lowercasedText)"
      )
      #expect(completion == .settled(message.reference))
      #expect(await harness.localChanges(Message.self).isEmpty)
    }

    @Test(
      "An answered message deletion, done or already done, has later news of the message's posting passed over",
      arguments: [
        UpstreamOutcome.success(.noContent),
        .permanent(BackendFailure(responseClass: .permanent, status: 404)),
      ])
    func answeredDeletionAwaitsItsNews(answer: UpstreamOutcome) async throws {
      // given
      let (harness, _, message, deletion) = try await Self.sentMessageBeingDeleted()

      // when
      await harness.complete(deletion, answer)

      // then
      let awaited = await harness.stack.sync.perform {
        $0.syncMetadata.isAwaitingNews(of: .deletedMessage(message.id))
      }
      #expect(awaited)
      #expect(await harness.localChanges(Message.self).isEmpty)
    }

    @Test(
      "A message deletion refused after the user left its group is settled here, not left failed or brought back"
    )
    func messageDeletionRefusedAfterLeaving() async throws {
      // given: the deletion is out when the user leaves the group, and the leave goes first
      let (harness, group, message, deletion) = try await Self.sentMessageBeingDeleted()
      try harness.save { try $0.delete(Conversation.self, id: group.id) }
      let leave = try #require(await harness.next())
      await harness.complete(leave, .success(.noContent))

      // when: the backend refuses the deletion, as it does for someone no longer a member
      let completion = await harness.complete(
        deletion, .permanent(BackendFailure(responseClass: .permanent, status: 403)))

      // then
      guard case .reverted(let reference, let reason) = completion else {
        Issue.record("the refusal ended as \(completion)")
        return
      }
      #expect(reference == message.reference)
      #expect(reason == "status 403, and it needs no request any more")
      #expect(await harness.queue().isEmpty)
      #expect(await harness.localChanges(Message.self).isEmpty)
      #expect(harness.ui.object(Message.self, id: message.id) == nil)
    }

    @Test(
      "A refused message deletion stops waiting as a failure once the user leaves the group")
    func refusedMessageDeletionThenLeaving() async throws {
      // given: a message deletion refused for good while the user was still a member
      let (harness, group, message, deletion) = try await Self.sentMessageBeingDeleted()
      let refused = await harness.complete(
        deletion, .permanent(BackendFailure(responseClass: .permanent, status: 403)))

      // when
      try harness.save { try $0.delete(Conversation.self, id: group.id) }
      let queue = await harness.queue()

      // then
      #expect(refused == .failed(message.reference, PushFailure(reason: "status 403", status: 403)))
      #expect(queue.failed.isEmpty)
      #expect(queue.pending.map(\.object) == [group.reference])
      #expect(await harness.localChanges(Message.self).isEmpty)
    }

    @Test(
      "A message deleted before it was ever sent, whose deletion is refused and given up, comes back unsent and goes"
    )
    func unsentDeletionGivenUp() async throws {
      // given: an unsent message deleted; its deletion goes and is refused
      let harness = TrackerHarness()
      let group = harness.make.conversation(creator: harness.me)
      try await harness.seedRemote([group])
      let message = harness.make.message(in: group, from: harness.me)
      try harness.insert([message])
      try harness.save { try $0.delete(Message.self, id: message.id) }
      let deletion = try #require(await harness.next())
      await harness.refuse(deletion)

      // when
      let upstream = harness.upstream
      try await harness.stack.sync.perform { context throws(SaveError) in
        _ = upstream.discardFailedChange(of: message.reference, in: context)
        try context.save()
      }
      let next = await harness.next()

      // then: the backend never had it, so it is not shown as held there
      #expect(deletion.request.method == .delete)
      #expect(await harness.localChanges(Message.self).inserted == [message.id])
      #expect(
        next?.endpoint
          == .postMessage(
            conversation: group.id, NewMessage(nonce: message.nonce, text: message.text)))
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
  }
}
