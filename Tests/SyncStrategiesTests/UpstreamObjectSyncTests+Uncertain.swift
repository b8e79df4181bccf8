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
  @Suite("Requests that carry part of a change, and answers that were lost")
  @MainActor
  struct PartialAndUncertain {
    @Test("A request that carries only some of the changed keys leaves the rest for the next one")
    func partialCarry() async throws {
      // given
      let harness = TrackerHarness()
      let group = try await renameWhileAddingAnn(in: harness)

      // when
      let requests = await harness.drain()

      // then
      #expect(requests.map(\.item.keys.names) == [["name"], ["participantIDs"]])
      #expect(requests.map { $0.request.method } == [.put, .post])
      #expect(
        await harness.localChanges(Conversation.self).keys(of: group.id) == [
          .name, .participantIDs,
        ])
    }

    @Test(
      "A resent insert that the backend answers with its first version keeps later edits pending")
    func resentInsertKeepsLaterEdits() async throws {
      // given
      let harness = TrackerHarness()
      let group = harness.make.conversation(name: "First", creator: harness.me)
      try harness.insert([group])
      let post = try #require(await harness.next())
      await harness.loseAnswer(to: post)
      try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Second" } }

      // when
      let resend = try #require(await harness.next(at: .seconds(60)))
      await harness.complete(resend, await harness.respond(to: resend))
      let rename = try #require(await harness.next(at: .seconds(60)))
      await harness.complete(rename, await harness.respond(to: rename))

      // then
      #expect(resend.json?["name"] == "Second")
      #expect(rename.json == ["name": "Second"])
      #expect(harness.fake.conversation(group.id)?.name == "Second")
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A group renamed by another member before the answer to its creation arrived takes that name")
    func remoteChangeBeforeInsertAnswer() async throws {
      // given
      let harness = TrackerHarness()
      let ann = harness.fake.insertUser(name: "Ann")
      let group = harness.make.conversation(name: "Mine", creator: harness.me)
      var withAnn = group
      withAnn.participantIDs.insert(ann)
      try await harness.seedRemote([User(id: ann, name: "Ann")])
      try harness.insert([withAnn])
      let post = try #require(await harness.next())
      await harness.loseAnswer(to: post)
      harness.fake.renameRemotely(group.id, to: "Theirs", by: ann)

      // when
      let resend = try #require(await harness.next(at: .seconds(60)))
      await harness.complete(resend, await harness.respond(to: resend))
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id)?.name == "Theirs")
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member added by a request whose answer was lost, then removed locally, is removed on the backend"
    )
    func lostAddThenRemove() async throws {
      // given: Ann's addition was applied but its answer lost
      let harness = TrackerHarness()
      let (id, ann, _) = try await seedGroup(in: harness, withAnn: false)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(ann) }
      }
      await harness.loseAnswer(to: try #require(await harness.next()))

      // when
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(ann) }
      }
      await harness.answerAll(at: .seconds(60))

      // then
      #expect(harness.fake.members(of: id) == [harness.me.id])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member addition the next app sends again after news that the member left keeps what it sent, and the member's later addition by another member is taken"
    )
    func resentAdditionAfterNewsOfLeaving() async throws {
      // given: Ann added Bob on the backend, unheard here; the user adds Bob too, and the app
      // dies with that addition out (the backend had Bob already); the app hears Ann's
      // addition; Ann removes Bob, and the next app hears that before it sends the addition
      // again
      let harness = TrackerHarness()
      let (id, ann, bob) = try await seedGroup(in: harness, withAnn: true)
      harness.fake.addMembersRemotely([bob], to: id, by: ann)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }
      _ = await harness.respond(to: try #require(await harness.next()))
      var cursor = try await pullNews(after: nil, into: harness)
      harness.fake.removeMembersRemotely([bob], from: id, by: ann)
      cursor = try await pullNews(after: cursor, into: harness)
      let nextApp = UpstreamObjectSync.standard(
        retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0))
      await answerAll(harness, with: nextApp)

      // when: Ann adds Bob again
      harness.fake.addMembersRemotely([bob], to: id, by: ann)
      _ = try await pullNews(after: cursor, into: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, bob]
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test("A member request in flight when the app died is still accounted for by the next app")
    func inFlightAtDeathIsRemembered() async throws {
      // given: Ann's addition reached the backend, and the app died before hearing back
      let harness = TrackerHarness()
      let (id, ann, _) = try await seedGroup(in: harness, withAnn: false)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(ann) }
      }
      _ = await harness.respond(to: try #require(await harness.next()))
      let nextApp = UpstreamObjectSync.standard(
        retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0))

      // when: the next app's user removes Ann again
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(ann) }
      }
      await answerAll(harness, with: nextApp)

      // then
      #expect(harness.fake.members(of: id) == [harness.me.id])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test("A request that surely never reached the backend leaves nothing uncertain behind")
    func unsentRequestWithdrawn() async throws {
      // given
      let harness = TrackerHarness()
      let (id, ann, _) = try await seedGroup(in: harness, withAnn: false)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(ann) }
      }
      let post = try #require(await harness.next())
      let uncertainInFlight = await harness.localChanges(Conversation.self).unconfirmed[id]

      // when
      await harness.complete(
        post,
        .temporary(BackendFailure(responseClass: .temporary, transportError: .network(.offline))))

      // then
      #expect(uncertainInFlight?.map(\.value.participantIDs) == [[harness.me.id, ann]])
      #expect(await harness.localChanges(Conversation.self).unconfirmed[id] == nil)
    }

    @Test(
      "A resent creation that surely never reached the backend withdraws its own record, even after a notification changed it"
    )
    func resentCreationWithdrawnAfterNews() async throws {
      // given: the first creation was applied but its answer lost, and another member renamed
      // the group while the resend was out
      let harness = TrackerHarness()
      let ann = harness.fake.insertUser(name: "Ann")
      try await harness.seedRemote([User(id: ann, name: "Ann")])
      var group = harness.make.conversation(name: "Mine", creator: harness.me)
      group.participantIDs.insert(ann)
      try harness.insert([group])
      await harness.loseAnswer(to: try #require(await harness.next()))
      let resend = try #require(await harness.next(at: .seconds(60)))
      harness.fake.renameRemotely(group.id, to: "Theirs", by: ann)
      try await pullNotifications(into: harness)

      // when
      await harness.complete(
        resend,
        .temporary(BackendFailure(responseClass: .temporary, transportError: .network(.offline))),
        at: .seconds(60))

      // then: only the first creation may be on the backend
      let possible = await harness.localChanges(Conversation.self).unconfirmed[group.id] ?? []
      #expect(possible.map(\.value.participantIDs) == [[harness.me.id, ann]])
      #expect(possible.map(\.value.name) == ["Theirs"])
    }

    @Test(
      "After a removal settled an uncertain member list, removing another member still reaches the backend"
    )
    func uncertainThenRemoved() async throws {
      // given: Ann and Bob's addition was applied but its answer lost, then Bob was removed
      let harness = TrackerHarness()
      let (id, ann, bob) = try await seedGroup(in: harness, withAnn: false)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.formUnion([ann, bob]) }
      }
      await harness.loseAnswer(to: try #require(await harness.next()))
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(bob) }
      }
      await harness.answerAll(at: .seconds(60))

      // when: Ann is removed too
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(ann) }
      }
      await harness.answerAll(at: .seconds(120))

      // then
      #expect(harness.fake.members(of: id) == [harness.me.id])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member that may be on the backend is removed even when removed locally before the last answer came"
    )
    func uncertainRemovedWhileInFlight() async throws {
      // given: Bob's addition was applied but its answer lost, and Ann's removal is in flight
      let harness = TrackerHarness()
      let (id, ann, bob) = try await seedGroup(in: harness, withAnn: true)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }
      await harness.loseAnswer(to: try #require(await harness.next()))
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(ann) }
      }
      let remove = try #require(await harness.next(at: .seconds(60)))
      let removed = await harness.respond(to: remove)

      // when: Bob is removed locally before the removal's answer arrives
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(bob) }
      }
      await harness.complete(remove, removed, at: .seconds(60))
      await harness.answerAll(at: .seconds(120))

      // then
      #expect(harness.fake.members(of: id) == [harness.me.id])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }
  }
}

/// A group named A, with Ann and the self user known and synchronised, renamed B with Ann added
/// in one save: two keys that go in two requests.
@MainActor
@discardableResult
func renameWhileAddingAnn(in harness: TrackerHarness) async throws -> Conversation {
  let ann = harness.make.user(name: "Ann")
  let group = harness.make.conversation(name: "A", creator: harness.me)
  try await harness.seedRemote([ann, group])
  try harness.save { context in
    try context.update(Conversation.self, id: group.id) {
      $0.name = "B"
      $0.participantIDs.insert(ann.id)
    }
  }
  return group
}

/// A group named G on the backend and in the sync context, with the self user (and Ann when
/// `withAnn`); Ann and Bob are users both know.
@MainActor
private func seedGroup(in harness: TrackerHarness, withAnn: Bool) async throws
  -> (group: UUID, ann: UUID, bob: UUID)
{
  let ann = harness.fake.insertUser(name: "Ann")
  let bob = harness.fake.insertUser(name: "Bob")
  let members = withAnn ? [ann] : []
  let id = harness.fake.createGroupRemotely(name: "G", by: harness.me.id, members: members)
  try await harness.seedRemote([
    User(id: ann, name: "Ann"), User(id: bob, name: "Bob"),
    Conversation(
      id: id, kind: .group, name: "G", creatorID: harness.me.id,
      participantIDs: Set([harness.me.id] + members), lastEventTime: harness.make.now),
  ])
  return (id, ann, bob)
}

/// Hands out and answers, with the fake's answers, every request `upstream` makes over the
/// harness's stack: a tracker other than the harness's, as the next app after a restart has.
@MainActor
private func answerAll(_ harness: TrackerHarness, with upstream: UpstreamObjectSync) async {
  while let request = await harness.stack.sync.perform({
    upstream.nextRequest(in: $0, now: .seconds(60))
  }) {
    let outcome = await harness.respond(to: request)
    await harness.stack.sync.perform { context in
      _ = upstream.complete(request.token, with: outcome, in: context, now: .seconds(60))
      _ = try? context.save()
    }
  }
}
