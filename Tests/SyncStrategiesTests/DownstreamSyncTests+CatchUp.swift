import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import Models
import ModelsTestSupport
import ParsingCore
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport

extension DownstreamSyncTests {
  /// Applying the connections and conversations the backend holds, for a client whose cursor
  /// the backend forgot.
  @Suite("Catching up")
  @MainActor
  struct CatchUp {
    /// A harness whose sync context holds group `id`, synchronised, with the self user and Ann.
    static func harness(holding id: UUID, ann: UUID) async throws -> TrackerHarness {
      let harness = TrackerHarness()
      let group = ConversationPayload(
        id: id, type: .group, name: "Team", creator: ann, selfMember: harness.me.id,
        otherMembers: [ann], lastEventTime: DownstreamSyncTests.time)
      try await catchUp(listing: [group], in: harness)
      return harness
    }

    /// Applies complete lists holding `conversations` and no connection, read at `version`, as
    /// a catch-up does.
    static func catchUp(
      listing conversations: [ConversationPayload], at version: ServerVersion? = nil,
      in harness: TrackerHarness
    ) async throws {
      try await harness.stack.sync.perform { context in
        _ = DownstreamSync().applyHeldState(
          connections: [], conversations: conversations, complete: true, readAt: version,
          in: context)
        try context.save()
      }
    }

    @Test(
      "A leave out while lists read after another member's return show the self user in the group is older than them: the group stays, and the leave is not sent again"
    )
    func leaveOlderThanListsGivesWay() async throws {
      // given: the backend applies the leave, Ann adds the self user back, and lists read then
      // show them in the group before the leave's answer comes
      let harness = TrackerHarness()
      let ann = harness.fake.insertUser(name: "Ann")
      let id = harness.fake.createGroupRemotely(name: "Team", by: ann, members: [harness.me.id])
      let group = ConversationPayload(
        id: id, type: .group, name: "Team", creator: ann, selfMember: harness.me.id,
        otherMembers: [ann], lastEventTime: DownstreamSyncTests.time)
      try await Self.catchUp(listing: [group], in: harness)
      try harness.save { try $0.delete(Conversation.self, id: id) }
      let leave = try #require(await harness.next())
      let answer = await harness.respond(to: leave)
      harness.fake.addMembersRemotely([harness.me.id], to: id, by: ann)
      try await Self.catchUp(listing: [group], at: harness.fake.version, in: harness)

      // when
      await harness.complete(leave, answer)
      let afterwards = await harness.answerAll()

      // then
      #expect(afterwards.isEmpty)
      #expect(harness.fake.members(of: id) == [ann, harness.me.id])
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == [ann, harness.me.id])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A group the lists leave out goes only when every element of the lists could be read",
      arguments: [true, false])
    func dropsOnlyFromCompleteLists(complete: Bool) async throws {
      // given
      let id = UUID(301)
      let harness = try await Self.harness(holding: id, ann: UUID(302))

      // when
      let applied = try await harness.stack.sync.perform { context in
        let applied = DownstreamSync().applyHeldState(
          connections: [], conversations: [], complete: complete, in: context)
        try context.save()
        return applied
      }
      await expectSettled(harness.stack.tracker)

      // then
      #expect(applied.droppedConversations == (complete ? [id] : []))
      #expect((harness.ui.object(Conversation.self, id: id) == nil) == complete)
    }

    @Test(
      "Of the news the backend still holds, only the messages are applied, and unknown senders are owed a fetch"
    )
    func appliesOnlyMessages() async throws {
      // given: the group is called Team now; older news renamed it Old and brought a message
      // from Ann and one from Bob, neither of whom the context holds as a user
      let id = UUID(310)
      let ann = UUID(311)
      let bob = UUID(312)
      let harness = try await Self.harness(holding: id, ann: ann)
      let time = DownstreamSyncTests.time
      func message(_ nonce: UUID, from user: UUID) -> EventPayload {
        .messageAdd(
          ConversationEvent(
            conversation: id, from: user, time: time,
            data: MessagePayload(nonce: nonce, conversation: id, from: user, text: "Hi", time: time)
          ))
      }
      let news = [
        NotificationPayload(
          id: UUID(313),
          events: [
            .conversationRename(
              ConversationEvent(conversation: id, from: ann, time: time, data: "Old")),
            message(UUID(314), from: ann),
          ]),
        NotificationPayload(id: UUID(315), events: [message(UUID(316), from: bob)]),
      ]

      // when
      let applied = try await harness.stack.sync.perform { context in
        let applied = DownstreamSync().applyKeptNews(news, listed: [id], in: context)
        try context.save()
        return applied
      }
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(Conversation.self, id: id)?.name == "Team")
      #expect(harness.ui.objects(Message.self).map(\.id).sorted() == [UUID(314), UUID(316)])
      #expect(applied.unknownUsers == [ann, bob])
    }

    @Test(
      "A group created here that neither the lists nor the kept news tell of waits to be confirmed once answered, and one whose creation the news tell of does not"
    )
    func createdGroupsToConfirm() async throws {
      // given: two groups created here and unanswered, both left out of the lists; the kept
      // news tell of the creation of the second only
      let harness = TrackerHarness()
      let untold = harness.make.conversation(name: "Untold", creator: harness.me)
      let told = harness.make.conversation(name: "Told", creator: harness.me)
      try harness.insert([untold, told])
      let time = DownstreamSyncTests.time
      let creation = ConversationPayload(
        id: told.id, type: .group, name: "Told", creator: harness.me.id,
        selfMember: harness.me.id, otherMembers: [], lastEventTime: time)
      let news = [
        NotificationPayload(
          id: UUID(320),
          events: [
            .conversationCreate(
              ConversationEvent(
                conversation: told.id, from: harness.me.id, time: time, data: creation))
          ])
      ]

      // when
      let applied = try await harness.stack.sync.perform { context in
        let applied = DownstreamSync().applyKeptNews(news, listed: [], in: context)
        try context.save()
        return applied
      }
      let (beforeAnswer, afterAnswer) = await harness.stack.sync.perform { context in
        let before = DownstreamSync().confirmCreatedGroups(in: context)
        context.clearLocalInsertion(Conversation.self, id: untold.id)
        return (before, DownstreamSync().confirmCreatedGroups(in: context))
      }

      // then
      #expect(applied.unconfirmedGroups == [untold.id])
      #expect(beforeAnswer.isEmpty)
      #expect(afterAnswer == [untold.id])
    }

    @Test(
      "A rename lost on its way out and answered after a catch-up goes once when the lists say the version they were read at"
    )
    func renameLostBeforeCatchUp() async throws {
      // given: the rename's request is lost before it reaches the backend; Ann renames the
      // group, in news the app does not read; lists are read, and the rename goes again under
      // its key and is applied after them
      let harness = TrackerHarness()
      let (id, rename) = try await Self.renameLostThenListed(readAtVersion: true, in: harness)
      let later = Duration.seconds(3_600)
      let again = try #require(await harness.next(at: later))
      await harness.complete(again, await harness.respond(to: again), at: later)

      // when
      let afterwards = await harness.answerAll(at: later)

      // then
      #expect(again.endpoint == rename.endpoint)
      #expect(afterwards.isEmpty)
      #expect(harness.fake.conversation(id)?.name == "Mine")
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A rename answered after a catch-up whose lists do not say their version stays pending, and goes again only under its key"
    )
    func renameAnsweredAfterUnversionedLists() async throws {
      // given: as above, but the lists do not say the version they were read at, so the
      // answer cannot be placed among them
      let harness = TrackerHarness()
      let (id, rename) = try await Self.renameLostThenListed(readAtVersion: false, in: harness)
      let later = Duration.seconds(3_600)
      let again = try #require(await harness.next(at: later))

      // when
      let completion = await harness.complete(again, await harness.respond(to: again), at: later)

      // then
      guard case .retrying(_, _, let failure) = completion else {
        Issue.record("The answer was taken: \(completion)")
        return
      }
      #expect(failure.unreadableBody == .missingVersion(.renameConversation))
      #expect(again.idempotencyKey == rename.idempotencyKey)
      let resend = try #require(await harness.next(at: later + .seconds(3_600)))
      #expect(resend.idempotencyKey == rename.idempotencyKey)
      #expect(harness.fake.conversation(id)?.name == "Mine")
      #expect(await !harness.localChanges(Conversation.self).isEmpty)
    }

    /// A group Ann made with the self user, renamed "Mine" here: the rename's request was lost
    /// before it reached the backend, Ann renamed the group, and a catch-up read the lists, at
    /// the backend's version when `readAtVersion`; returns the group and the lost request.
    static func renameLostThenListed(readAtVersion: Bool, in harness: TrackerHarness)
      async throws -> (group: UUID, rename: UpstreamRequest)
    {
      let ann = harness.fake.insertUser(name: "Ann")
      let id = harness.fake.createGroupRemotely(name: "Team", by: ann, members: [harness.me.id])
      let group = try #require(harness.fake.conversation(id))
      try await Self.catchUp(listing: [group], in: harness)
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }
      let rename = try #require(await harness.next())
      await harness.complete(
        rename,
        .temporary(
          BackendFailure(responseClass: .temporary, transportError: .network(.connectionLost))))
      _ = harness.fake.renameRemotely(id, to: "Ann's", by: ann)
      let listed = try #require(harness.fake.conversation(id))
      let readAt = readAtVersion ? harness.fake.version : nil
      try await harness.stack.sync.perform { context in
        _ = DownstreamSync().applyHeldState(
          connections: [], conversations: [listed], complete: true, readAt: readAt, in: context)
        try context.save()
      }
      return (id, rename)
    }

    @Test("The users the lists name, but the self user, are owed a fetch")
    func namesUsers() async throws {
      // given
      let harness = TrackerHarness()
      let ann = UUID(303)
      let bob = UUID(304)
      let connection = ConnectionPayload(
        from: harness.me.id, to: ann, status: .accepted, conversation: UUID(305),
        lastUpdate: DownstreamSyncTests.time)
      let group = ConversationPayload(
        id: UUID(306), type: .group, name: "Team", creator: bob, selfMember: harness.me.id,
        otherMembers: [bob], lastEventTime: DownstreamSyncTests.time)

      // when
      let applied = await harness.stack.sync.perform { context in
        DownstreamSync().applyHeldState(
          connections: [connection], conversations: [group], complete: true, in: context)
      }

      // then
      #expect(applied.namedUsers == [ann, bob])
    }

    @Test(
      "The newest notification's id is read from its answer, and none from a 404",
      arguments: zip([200, 404], [UUID(307), nil]))
    func lastNotification(status: Int, expected: UUID?) throws {
      // given
      let notification = NotificationPayload(id: UUID(307), events: [])
      let response =
        status == 200
        ? TransportResponse(status: 200, json: notification.jsonValue)
        : TransportResponse(status: 404, json: ["label": "not-found", "message": "none"])

      // when
      let id = try DownstreamSync().readLastNotificationID(response)

      // then
      #expect(id == expected)
    }

    @Test("A success without a list is an error, not an empty list that would drop everything")
    func noContentIsNoList() {
      // given
      let response = TransportResponse(status: 204)

      // when
      let downstream = DownstreamSync()

      // then
      #expect(throws: DownstreamError.self) { try downstream.readConversations(response) }
      #expect(throws: DownstreamError.self) { try downstream.readConnections(response) }
      #expect(throws: DownstreamError.self) { try downstream.readLastNotificationID(response) }
    }
  }
}
