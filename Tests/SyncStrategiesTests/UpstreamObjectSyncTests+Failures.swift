import ConnectionParsing
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
  @Suite("When the backend refuses or fails")
  @MainActor
  struct Failures {
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

    @Test("A retry already sent is no longer a retry to wake up for")
    func retrySentIsNotWaitedFor() async throws {
      // given
      let harness = TrackerHarness()
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
      let first = try #require(await harness.next())
      await harness.complete(
        first, .temporary(BackendFailure(responseClass: .temporary, status: 503)))
      let waitingFor = harness.upstream.nextRetryTime(after: .zero)
      _ = try #require(await harness.next(at: .seconds(1)))

      // when
      let next = harness.upstream.nextRetryTime(after: .seconds(1))

      // then
      #expect(waitingFor == .seconds(1))
      #expect(next == nil)
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

    @Test(
      "Another request for the same object, failing for a while or succeeding, does not cut short a Retry-After",
      arguments: [
        UpstreamOutcome.temporary(BackendFailure(responseClass: .temporary, status: 503)),
        .success(.noContent),
      ])
    func retryAfterNotCutShort(otherAnswer: UpstreamOutcome) async throws {
      // given: a rename and a new member go at once; the rename is told to wait 30 s
      let harness = TrackerHarness()
      try await renameWhileAddingAnn(in: harness)
      let requests = await harness.drain()
      try #require(requests.map(\.item.keys.names) == [["name"], ["participantIDs"]])
      await harness.complete(
        requests[0],
        .temporary(
          BackendFailure(responseClass: .temporary, status: 429, retryAfter: .seconds(30))))

      // when: the member request is answered; a 503's own backoff would be 2 s
      await harness.complete(requests[1], otherAnswer)

      // then
      let waits = await harness.queue().retrying.map(\.retryIn)
      #expect(waits == [.seconds(30)])
      #expect(await harness.next(at: .seconds(29)) == nil)
      let due = await harness.drain(at: .seconds(30))
      #expect(due.contains { $0.item.keys.names.contains("name") })
    }

    @Test(
      "A rename the plan found ready waits out a Retry-After that its group's member request was told since"
    )
    func readyRenameWaitsOutLaterRetryAfter() async throws {
      // given: Ann is being added to three groups, and then all three are renamed; one rename
      // goes, and the other two wait, ready, in the tracker's plan
      let harness = TrackerHarness()
      let ann = harness.make.user(name: "Ann")
      let groups = (0..<3).map { _ in harness.make.conversation(name: "A", creator: harness.me) }
      try await harness.seedRemote([ann] + groups)
      try harness.save { context in
        for group in groups {
          try context.update(Conversation.self, id: group.id) { $0.participantIDs.insert(ann.id) }
        }
      }
      let additions = await harness.drain()
      try harness.save { context in
        for group in groups {
          try context.update(Conversation.self, id: group.id) { $0.name = "B" }
        }
      }
      let firstRename = try #require(await harness.next())
      let told = try #require(
        additions.first { $0.item.object != firstRename.item.object }?.item.object)
      let addition = try #require(additions.first { $0.item.object == told })

      // when: the addition to another of the groups is told to wait 30 s
      await harness.complete(
        addition,
        .temporary(
          BackendFailure(responseClass: .temporary, status: 429, retryAfter: .seconds(30))))
      let now = await harness.drain()

      // then: that group's rename waits with it; the third goes
      #expect(additions.count == groups.count)
      #expect(now.map(\.item.object).contains(told) == false)
      #expect(now.count == 1)
      #expect(await harness.drain(at: .seconds(30)).map(\.item.object).contains(told))
    }

    @Test(
      "A permanent failure is kept in the change log with its reason and status, and not retried")
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
      let harness = try await refusedRename(to: "Ada")

      // when
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada Lovelace" } }
      let next = await harness.next()

      // then
      #expect(next?.json == ["name": "Ada Lovelace"])
    }

    @Test("Retrying a refused change sends it again")
    func retryFailed() async throws {
      // given
      let harness = try await refusedRename(to: "Ada")
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
      let harness = try await refusedRename(to: "Ada")
      let upstream = harness.upstream
      let me = harness.me.reference

      // when
      let discarded = try await harness.stack.sync.perform { context in
        let discarded = upstream.discardFailedChange(of: me, in: context)
        try context.save()
        return discarded
      }
      await expectSettled(harness.stack.tracker)

      // then
      #expect(discarded)
      #expect(harness.ui.object(User.self, id: harness.me.id)?.name == "Me")
      #expect(await harness.localChanges(User.self).isEmpty)
      #expect(await harness.queue().isEmpty)
    }

    @Test(
      "Discarding a refused change whose earlier attempt may have been applied sends the backend's last known value again"
    )
    func discardAfterLostAnswer() async throws {
      // given: the first rename was applied but its answer lost; the resend is refused
      let harness = TrackerHarness()
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
      await harness.loseAnswer(to: try #require(await harness.next()))
      await harness.refuse(try #require(await harness.next(at: .seconds(60))))
      let upstream = harness.upstream
      let me = harness.me.reference

      // when
      try await harness.stack.sync.perform { context in
        upstream.discardFailedChange(of: me, in: context)
        try context.save()
      }
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(User.self, id: harness.me.id)?.name == "Me")
      #expect(await harness.localChanges(User.self).keys(of: harness.me.id) == [.name])
      await harness.answerAll(at: .seconds(120))
      #expect(harness.fake.user(harness.me.id)?.name == "Me")
      #expect(await harness.localChanges(User.self).isEmpty)
    }

    @Test(
      "Discarding a refused connection request after the contact asked on their own device keeps their request here, as the backend holds it (simulator seed 60390)"
    )
    func discardRefusedRequestAfterContactAsked() async throws {
      // given: the self user's request to Bob is refused; Bob then asks the self user to
      // connect, and the news say so before the app gives its request up
      let harness = TrackerHarness()
      let bob = try await knownUsers(["Bob"], in: harness)[0]
      let request = Connection(
        from: harness.me.id, to: bob, status: .sent, lastUpdate: harness.make.now, message: "Hi")
      try harness.insert([request])
      await harness.refuse(try #require(await harness.next()))
      harness.fake.requestConnectionRemotely(from: bob)
      try await pullNotifications(into: harness)

      // when
      try await discardFailedChange(of: request.reference, in: harness)

      // then
      #expect(harness.fake.connection(from: harness.me.id, to: bob)?.status == .pending)
      #expect(harness.ui.object(Connection.self, id: bob)?.status == .pending)
      #expect(await harness.localChanges(Connection.self).isEmpty)
      #expect(await harness.queue().isEmpty)
    }

    @Test(
      "Discarding a refused connection request cancelled before it went, whose earlier attempt may have been applied, leaves it as the backend made it: sent (simulator seed 20853)"
    )
    func discardRefusedRequestCancelledBeforeItWent() async throws {
      // given: the self user asks Bob to connect and cancels before the request goes; the
      // request was applied but its answer lost, and the resend is refused
      let harness = TrackerHarness()
      let bob = try await knownUsers(["Bob"], in: harness)[0]
      let request = Connection(
        from: harness.me.id, to: bob, status: .sent, lastUpdate: harness.make.now, message: "Hi")
      try harness.insert([request])
      try harness.save { try $0.update(Connection.self, id: bob) { $0.status = .cancelled } }
      await harness.loseAnswer(to: try #require(await harness.next()))
      await harness.refuse(try #require(await harness.next(at: .seconds(60))))

      // when
      try await discardFailedChange(of: request.reference, in: harness)

      // then: a request to connect makes a sent connection, whatever the object here said
      #expect(harness.fake.connection(from: harness.me.id, to: bob)?.status == .sent)
      #expect(harness.ui.object(Connection.self, id: bob)?.status == .sent)
      #expect(await harness.localChanges(Connection.self).isEmpty)
    }

    @Test(
      "Discarding a refused message that the news showed on the backend, from an attempt this device lost track of, deletes it there too (simulator seed 142)"
    )
    func discardRefusedMessageTheNewsShowed() async throws {
      // given: an attempt of the message from an app instance killed before it heard back
      // landed; this instance's resend is refused, and the news of the message come before the
      // app gives it up
      let harness = TrackerHarness()
      let (id, _) = try await seedGroupWithAnn(in: harness)
      let group = try #require(harness.ui.object(Conversation.self, id: id))
      let message = harness.make.message(in: group, from: harness.me)
      try harness.insert([message])
      _ = harness.fake.answer(
        .postMessage(conversation: id, NewMessage(nonce: message.nonce, text: message.text)))
      await harness.refuse(try #require(await harness.next()))
      try await pullNotifications(into: harness)

      // when
      try await discardFailedChange(of: message.reference, in: harness)
      await harness.answerAll(at: .seconds(120))

      // then
      #expect(harness.fake.messages(in: id).isEmpty)
      #expect(harness.ui.object(Message.self, id: message.id) == nil)
      #expect(await harness.queue().isEmpty)
    }

    @Test(
      "Discarding a refused creation that an earlier attempt may have made has the self user leave the group on the backend"
    )
    func discardCreationAfterLostAnswer() async throws {
      // given: the first creation was applied but its answer lost; the resend is refused
      let harness = TrackerHarness()
      let group = harness.make.conversation(name: "Lunch", creator: harness.me)
      try harness.insert([group])
      await harness.loseAnswer(to: try #require(await harness.next()))
      await harness.refuse(try #require(await harness.next(at: .seconds(60))))
      let upstream = harness.upstream

      // when
      try await harness.stack.sync.perform { context in
        upstream.discardFailedChange(of: group.reference, in: context)
        try context.save()
      }
      await expectSettled(harness.stack.tracker)
      let sent = await harness.answerAll(at: .seconds(120))

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id) == nil)
      #expect(
        sent.map(\.endpoint) == [
          .removeMembers(conversation: group.id, MemberList(users: [harness.me.id]))
        ])
      #expect(harness.fake.members(of: group.id).contains(harness.me.id) == false)
      #expect(await harness.queue().isEmpty)
    }

    @Test(
      "Giving up the refused leaving of a given-up creation brings the group back as new, and its creation goes again",
      arguments: [true, false])
    func discardRefusedCleanup(firstAttemptApplied: Bool) async throws {
      // given: the first creation may have been applied (its answer was lost, or a 503 came),
      // its resend was refused and given up, and the leaving that followed was refused too
      let harness = TrackerHarness()
      let group = harness.make.conversation(name: "Lunch", creator: harness.me)
      try harness.insert([group])
      let first = try #require(await harness.next())
      if firstAttemptApplied {
        await harness.loseAnswer(to: first)
      } else {
        await harness.complete(
          first, .temporary(BackendFailure(responseClass: .temporary, status: 503)))
      }
      await harness.refuse(try #require(await harness.next(at: .seconds(60))))
      let upstream = harness.upstream
      let discard = { @Sendable (context: ModelContext) throws in
        upstream.discardFailedChange(of: group.reference, in: context)
        try context.save()
      }
      try await harness.stack.sync.perform(discard)
      await harness.refuse(try #require(await harness.next(at: .seconds(120))))

      // when
      try await harness.stack.sync.perform(discard)
      let sent = await harness.answerAll(at: .seconds(180))
      await expectSettled(harness.stack.tracker)

      // then
      #expect(sent.map(\.endpoint.route) == [.createConversation])
      #expect(harness.ui.object(Conversation.self, id: group.id) != nil)
      #expect(harness.fake.members(of: group.id) == [harness.me.id])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
      #expect(await harness.localChanges(Conversation.self).unconfirmed.isEmpty)
    }

    @Test("Discarding a refused creation the backend cannot hold sends nothing")
    func discardCreationNeverApplied() async throws {
      // given
      let harness = TrackerHarness()
      let group = harness.make.conversation(name: "Lunch", creator: harness.me)
      try harness.insert([group])
      await harness.refuse(try #require(await harness.next()))
      let upstream = harness.upstream

      // when
      try await harness.stack.sync.perform { context in
        upstream.discardFailedChange(of: group.reference, in: context)
        try context.save()
      }
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id) == nil)
      #expect(await harness.next(at: .seconds(120)) == nil)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test("A refusal of a change to an object deleted here since blocks nothing: the deletion goes")
    func refusalOfDeletedObject() async throws {
      // given: the rename is out when the user leaves the group
      let harness = TrackerHarness()
      let group = harness.make.conversation(name: "A", creator: harness.me)
      try await harness.seedRemote([group])
      try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "B" } }
      let rename = try #require(await harness.next())
      try harness.save { try $0.delete(Conversation.self, id: group.id) }

      // when
      await harness.refuse(rename, status: 403)
      let next = await harness.next()

      // then
      #expect(await harness.queue().failed.isEmpty)
      #expect(
        next?.endpoint
          == .removeMembers(conversation: group.id, MemberList(users: [harness.me.id])))
    }

    @Test("A refusal of a change to an object the server deleted since leaves no failure behind")
    func refusalOfRemotelyDeletedObject() async throws {
      // given: the rename is out when the server's deletion of the group arrives
      let harness = TrackerHarness()
      let group = harness.make.conversation(name: "A", creator: harness.me)
      try await harness.seedRemote([group])
      try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "B" } }
      let rename = try #require(await harness.next())
      try await harness.stack.sync.perform { context in
        context.applyRemoteDeletion(Conversation.self, id: group.id)
        try context.save()
      }

      // when
      await harness.refuse(rename, status: 404)

      // then
      #expect(await harness.queue().isEmpty)
      #expect(await harness.localChanges(Conversation.self).failures.isEmpty)
    }

    @Test("A refusal of values the user has replaced since blocks nothing: the newer values go")
    func refusalOfReplacedValues() async throws {
      // given: "Ada" is out when the user renames again
      let harness = TrackerHarness()
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
      let refused = try #require(await harness.next())
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Bea" } }

      // when
      let completion = await harness.complete(
        refused, .permanent(BackendFailure(responseClass: .permanent, status: 400)))
      let next = await harness.next()

      // then
      #expect(
        completion
          == .reverted(harness.me.reference, reason: "status 400, and it was changed here since"))
      #expect(await harness.queue().failed.isEmpty)
      #expect(next?.endpoint == .updateSelf(SelfUpdate(name: "Bea")))
    }

    @Test(
      "A refused removal of a member, sent before an addition of the same change, waits as a failure instead of going again"
    )
    func refusedRemovalBeforeAddition() async throws {
      // given: the user removes Bob and adds Cat in one save; the removal goes first
      let harness = TrackerHarness()
      let (ann, bob, cat) = (
        harness.make.user(name: "Ann"), harness.make.user(name: "Bob"),
        harness.make.user(name: "Cat")
      )
      let group = harness.make.conversation(creator: harness.me, participants: [ann, bob])
      try await harness.seedRemote([ann, bob, cat, group])
      try harness.save { context in
        try context.update(Conversation.self, id: group.id) {
          $0.participantIDs.remove(bob.id)
          $0.participantIDs.insert(cat.id)
        }
      }
      let removal = try #require(await harness.next())

      // when
      let completion = await harness.complete(
        removal, .permanent(BackendFailure(responseClass: .permanent, status: 403)))
      let next = await harness.next()

      // then
      #expect(
        removal.endpoint == .removeMembers(conversation: group.id, MemberList(users: [bob.id])))
      #expect(
        completion == .failed(group.reference, PushFailure(reason: "status 403", status: 403)))
      #expect(next == nil)
      #expect(await harness.queue().failed.map(\.object) == [group.reference])
    }

    @Test("Discarding a refused change leaves alone a key another request of the object carries")
    func discardSparesKeyInFlight() async throws {
      // given: the rename and the new member go at once; the new member is refused
      let harness = TrackerHarness()
      let group = try await renameWhileAddingAnn(in: harness)
      let requests = await harness.drain()
      try #require(requests.map(\.item.keys.names) == [["name"], ["participantIDs"]])
      await harness.refuse(requests[1], status: 403)
      let upstream = harness.upstream

      // when
      let discarded = try await harness.stack.sync.perform { context in
        let discarded = upstream.discardFailedChange(of: group.reference, in: context)
        try context.save()
        return discarded
      }
      await harness.complete(requests[0], .success(.noContent))
      await expectSettled(harness.stack.tracker)

      // then
      #expect(discarded)
      let after = try #require(harness.ui.object(Conversation.self, id: group.id))
      #expect(after.name == "B")
      #expect(after.participantIDs == group.participantIDs)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }
  }
}

/// A harness whose self user was renamed to `name`, and the rename refused for good.
@MainActor
private func refusedRename(to name: String) async throws -> TrackerHarness {
  let harness = TrackerHarness()
  try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = name } }
  await harness.refuse(try #require(await harness.next()))
  return harness
}

/// Gives up the refused change of `object` as an app does, saves, and waits until the tracker
/// is idle.
@MainActor
private func discardFailedChange(of object: ObjectReference, in harness: TrackerHarness)
  async throws
{
  let upstream = harness.upstream
  try await harness.stack.sync.perform { context in
    upstream.discardFailedChange(of: object, in: context)
    try context.save()
  }
  await expectSettled(harness.stack.tracker)
}
