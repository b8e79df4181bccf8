import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import Models
import ParsingCore
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

extension DownstreamSyncTests {
  /// News of a change the user made may be read after its answer, behind older news of the same
  /// object: until its own news come, those older news leave the object where the answer put it.
  @Suite("News of the user's own answered changes")
  @MainActor
  struct OwnNews {
    nonisolated static let time = Date(timeIntervalSince1970: 1_800_000_000)
    nonisolated static let ann = UUID(121)
    nonisolated static let bob = UUID(122)
    nonisolated static let group = UUID(120)

    /// A harness whose sync context has Lunch, with Ann and the self user, as the backend
    /// last said.
    static func lunch() async throws -> TrackerHarness {
      let harness = TrackerHarness()
      let lunch = Conversation(
        id: group, kind: .group, name: "Lunch", creatorID: harness.me.id,
        participantIDs: [harness.me.id, ann], lastEventTime: time)
      try await harness.seedRemote([lunch])
      return harness
    }

    /// Adds Bob to Lunch here and has the backend answer that it added him, with `news` read
    /// while the request was out.
    static func addBob(
      in harness: TrackerHarness, newsWhileOut news: [EventPayload] = []
    ) async throws {
      try harness.save {
        try $0.update(Conversation.self, id: group) { $0.participantIDs.insert(bob) }
      }
      let addition = try #require(await harness.next())
      if !news.isEmpty { _ = try await DownstreamSyncTests().apply(news, to: harness) }
      await harness.complete(addition, .success(.membersChanged(MembersChanged(userIDs: [bob]))))
    }

    /// A member event in Lunch.
    nonisolated static func event(_ users: [UUID], from author: UUID, joined: Bool)
      -> EventPayload
    {
      let change = ConversationEvent(conversation: group, from: author, time: time, data: users)
      return joined ? .memberJoin(change) : .memberLeave(change)
    }

    /// A harness whose user left Lunch, the backend answering that it took them out.
    static func leftLunch() async throws -> TrackerHarness {
      let harness = try await lunch()
      try harness.save { try $0.delete(Conversation.self, id: group) }
      let leave = try #require(await harness.next())
      await harness.complete(
        leave, .success(.membersChanged(MembersChanged(userIDs: [harness.me.id]))))
      return harness
    }

    /// News that Lunch was made with the self user and Ann in it, by `author`.
    nonisolated static func making(from author: UUID, me: UUID) -> EventPayload {
      let payload = ConversationPayload(
        id: group, type: .group, name: "Lunch", creator: me, selfMember: me,
        otherMembers: [ann], lastEventTime: time)
      return .conversationCreate(
        ConversationEvent(conversation: group, from: author, time: time, data: payload))
    }

    /// What the sync context holds: Lunch's members, and the answered member changes it awaits
    /// news of.
    static func state(of harness: TrackerHarness) async -> (Set<UUID>?, [AnsweredMemberChange]) {
      await harness.stack.sync.perform {
        (
          $0.object(Conversation.self, id: group)?.participantIDs,
          $0.syncMetadata.memberChangesAwaitingNews
        )
      }
    }

    @Test("An answered addition of a member waits for its news, numbered in the order answered")
    func answeredAdditionAwaitsItsNews() async throws {
      // given
      let harness = try await Self.lunch()

      // when
      try await Self.addBob(in: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(
        awaited == [
          AnsweredMemberChange(number: 0, conversation: Self.group, joined: true, users: [Self.bob])
        ])
    }

    @Test(
      "An answered member change whose news may have been read while it was out waits for nothing",
      arguments: [
        [Self.event([Self.bob], from: Self.ann, joined: true)],
        [
          Self.event([Self.bob], from: Self.ann, joined: true),
          Self.event([Self.bob], from: Self.ann, joined: false),
        ],
      ])
    func answeredChangeHeardWhileOut(news: [EventPayload]) async throws {
      // given: news of Bob read while the addition was out: its own, or another's changes of
      // him that it may have come between

      // when
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness, newsWhileOut: news)

      // then
      let (_, awaited) = await Self.state(of: harness)
      #expect(awaited.isEmpty)
    }

    @Test(
      "An answer to a request out across a catch-up waits for nothing, since the catch-up may have moved past its news"
    )
    func answerAcrossCatchUp() async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save {
        try $0.update(Conversation.self, id: Self.group) {
          $0.participantIDs.insert(Self.bob)
          $0.name = "Brunch"
        }
      }
      let requests = await harness.drain()
      await harness.stack.sync.perform { $0.noteCatchUpApplied() }

      // when
      for request in requests {
        let answer: EndpointResponse =
          if case .renameConversation(_, let rename) = request.endpoint {
            .renamed(rename)
          } else {
            .membersChanged(MembersChanged(userIDs: [Self.bob]))
          }
        await harness.complete(request, .success(answer))
      }

      // then
      #expect(requests.count == 2)
      let awaited = await harness.stack.sync.perform {
        ($0.syncMetadata.memberChangesAwaitingNews, $0.syncMetadata.valueChangesAwaitingNews)
      }
      #expect(awaited.0.isEmpty)
      #expect(awaited.1.isEmpty)
    }

    @Test(
      "An answer that changed no member waits for the news of whoever moved them, which anyone may have done"
    )
    func answerThatChangedNothing() async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save {
        try $0.update(Conversation.self, id: Self.group) { $0.participantIDs.insert(Self.bob) }
      }
      let addition = try #require(await harness.next())

      // when
      await harness.complete(addition, .success(.noContent))

      // then
      let (_, awaited) = await Self.state(of: harness)
      #expect(
        awaited == [
          AnsweredMemberChange(
            number: 0, conversation: Self.group, joined: true, users: [Self.bob],
            fromAnyone: true)
        ])
    }

    @Test(
      "Another member's news of the change an answer found made already end its wait, and older news pass over",
      arguments: zip([false, true], [1, 0]))
    func answerThatChangedNothingEndsWithAnyonesNews(ownNewsRead: Bool, stillAwaited: Int)
      async throws
    {
      // given: Bob's addition answered 204; the news read then tell of an earlier removal of
      // him, and, in the second case, of Ann's addition of him, which the answer found
      let harness = try await Self.lunch()
      try harness.save {
        try $0.update(Conversation.self, id: Self.group) { $0.participantIDs.insert(Self.bob) }
      }
      let addition = try #require(await harness.next())
      await harness.complete(addition, .success(.noContent))
      let older = Self.event([Self.bob], from: Self.ann, joined: false)
      let own = Self.event([Self.bob], from: Self.ann, joined: true)

      // when
      _ = try await DownstreamSyncTests().apply(ownNewsRead ? [older, own] : [older], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(awaited.count == stillAwaited)
    }

    @Test(
      "Older news of a member an answered change moved leave them where the answer put them, and the change's own news end the wait",
      arguments: zip([false, true], [1, 0]))
    func olderNewsLeaveTheMember(ownNewsRead: Bool, stillAwaited: Int) async throws {
      // given: the addition of Bob answered; news read after it tell of Ann's removal of Bob
      // before it, then, or not yet, of the addition itself
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)
      let news =
        [Self.event([Self.bob], from: Self.ann, joined: false)]
        + (ownNewsRead ? [Self.event([Self.bob], from: harness.me.id, joined: true)] : [])

      // when
      _ = try await DownstreamSyncTests().apply(news, to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(awaited.count == stillAwaited)
      #expect(await harness.next() == nil)
    }

    @Test("News of members no answered change names apply while others wait")
    func otherMembersApply() async throws {
      // given
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)

      // when
      _ = try await DownstreamSyncTests().apply(
        [Self.event([Self.ann, Self.bob], from: Self.ann, joined: false)], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.bob])
      #expect(awaited.count == 1)
    }

    @Test("News of the group's creation read after an answered member change keep that member")
    func creationNewsKeepTheMember() async throws {
      // given
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)
      let created = ConversationPayload(
        id: Self.group, type: .group, name: "Lunch", creator: harness.me.id,
        selfMember: harness.me.id, otherMembers: [Self.ann], lastEventTime: Self.time)

      // when
      _ = try await DownstreamSyncTests().apply(
        [
          .conversationCreate(
            ConversationEvent(
              conversation: Self.group, from: harness.me.id, time: Self.time, data: created))
        ], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(awaited.count == 1)
    }

    @Test("News of the self user's removal from the group end its changes' wait")
    func removalFromTheGroupEndsTheWait() async throws {
      // given
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)

      // when
      _ = try await DownstreamSyncTests().apply(
        [Self.event([harness.me.id], from: Self.ann, joined: false)], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == nil)
      #expect(awaited.isEmpty)
    }

    @Test(
      "News of a message's posting, read after this device's deletion of it was answered, leave it deleted until the news of its deletion",
      arguments: zip([false, true], [true, false]))
    func postingNewsOfAnsweredDeletion(deletionRead: Bool, stillAwaited: Bool) async throws {
      // given: the user's message in a group, deleted here and on the backend
      let harness = TrackerHarness()
      let group = harness.make.conversation(creator: harness.me)
      try await harness.seedRemote([group])
      let nonce = UUID(109)
      try await harness.stack.sync.perform { context in
        context.syncMetadata.deletedMessagesAwaitingNews = [nonce]
        try context.save()
      }
      func event<Data>(_ data: Data) -> ConversationEvent<Data> {
        ConversationEvent(conversation: group.id, from: harness.me.id, time: Self.time, data: data)
      }
      let posted = MessagePayload(
        nonce: nonce, conversation: group.id, from: harness.me.id, text: "Hi", time: Self.time)
      let events: [EventPayload] =
        [.messageAdd(event(posted))] + (deletionRead ? [.messageDelete(event(nonce))] : [])

      // when
      let applied = try await DownstreamSyncTests().apply(events, to: harness)

      // then
      #expect(harness.ui.object(Message.self, id: nonce) == nil)
      #expect(applied.skippedEvents == 0)
      let awaited = await harness.stack.sync.perform {
        $0.syncMetadata.deletedMessagesAwaitingNews
      }
      #expect(awaited == (stillAwaited ? [nonce] : []))
    }

    @Test(
      "A group the user left, the backend saying it took them out, is passed over by news of its making until the news of the leaving",
      arguments: zip([false, true], [true, false]))
    func newsOfALeftGroup(leavingRead: Bool, stillAwaited: Bool) async throws {
      // given
      let harness = try await Self.leftLunch()
      let news =
        [Self.making(from: harness.me.id, me: harness.me.id)]
        + (leavingRead ? [Self.event([harness.me.id], from: harness.me.id, joined: false)] : [])

      // when
      let applied = try await DownstreamSyncTests().apply(news, to: harness)

      // then
      let (members, _) = await Self.state(of: harness)
      #expect(members == nil)
      #expect(applied.skippedEvents == 0)
      let awaited = await harness.stack.sync.perform { $0.syncMetadata.leftGroupsAwaitingNews }
      #expect(awaited == (stillAwaited ? [Self.group] : []))
    }

    @Test("A leave the backend answered without taking the user out waits for no news")
    func leaveAlreadyDone() async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save { try $0.delete(Conversation.self, id: Self.group) }
      let leave = try #require(await harness.next())

      // when
      await harness.complete(leave, .success(.noContent))

      // then
      let awaited = await harness.stack.sync.perform { $0.syncMetadata.leftGroupsAwaitingNews }
      #expect(awaited.isEmpty)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "News of another member taking the self user out of a group they left leave the leave waiting, so news of their return, older than it, are passed over"
    )
    func othersRemovalOfALeftGroup() async throws {
      // given: the user's leave of Lunch answered as taking them out; the news then tell of Ann
      // removing them and adding them back, both before the leave
      let harness = try await Self.leftLunch()

      // when
      _ = try await DownstreamSyncTests().apply(
        [
          Self.event([harness.me.id], from: Self.ann, joined: false),
          Self.making(from: Self.ann, me: harness.me.id),
          Self.event([harness.me.id], from: Self.ann, joined: true),
        ], to: harness)

      // then
      let (members, _) = await Self.state(of: harness)
      #expect(members == nil)
      let awaited = await harness.stack.sync.perform { $0.syncMetadata.leftGroupsAwaitingNews }
      #expect(awaited == [Self.group])
    }

    @Test(
      "A rename of the self user answered before its news leaves older news of the name and accent without effect until its own news",
      arguments: zip([false, true], [2, 0]))
    func olderNewsOfTheSelfUser(ownNewsRead: Bool, stillAwaited: Int) async throws {
      // given: the self user renamed to Second with accent 4, answered; news of an earlier
      // rename to First with accent 2 come after the answer
      let harness = TrackerHarness()
      try harness.save {
        try $0.update(User.self, id: harness.me.id) {
          $0.name = "Second"
          $0.accentID = 4
        }
      }
      let update = try #require(await harness.next())
      await harness.complete(update, await harness.respond(to: update))
      let me = harness.me.id
      let news: [EventPayload] =
        [.userUpdate(UserUpdatePayload(id: me, name: "First", accentID: 2))]
        + (ownNewsRead ? [.userUpdate(UserUpdatePayload(id: me, name: "Second", accentID: 4))] : [])

      // when
      _ = try await DownstreamSyncTests().apply(news, to: harness)

      // then
      #expect(harness.ui.selfUser?.name == "Second")
      #expect(harness.ui.selfUser?.accentID == 4)
      let awaited = await harness.stack.sync.perform { $0.syncMetadata.valueChangesAwaitingNews }
      #expect(awaited.count == stillAwaited)
      #expect(await harness.next() == nil)
    }

    @Test(
      "A group rename answered before its news leaves an older rename without effect, and its own news end the wait",
      arguments: zip([false, true], [1, 0]))
    func olderRenameOfAGroup(ownNewsRead: Bool, stillAwaited: Int) async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save { try $0.update(Conversation.self, id: Self.group) { $0.name = "Brunch" } }
      let rename = try #require(await harness.next())
      await harness.complete(rename, .success(.renamed(ConversationRename(name: "Brunch"))))
      func renamed(_ name: String, by author: UUID) -> EventPayload {
        .conversationRename(
          ConversationEvent(conversation: Self.group, from: author, time: Self.time, data: name))
      }
      let news =
        [renamed("Supper", by: Self.ann)]
        + (ownNewsRead ? [renamed("Brunch", by: harness.me.id)] : [])

      // when
      _ = try await DownstreamSyncTests().apply(news, to: harness)

      // then
      let name = await harness.stack.sync.perform {
        $0.object(Conversation.self, id: Self.group)?.name
      }
      #expect(name == "Brunch")
      let awaited = await harness.stack.sync.perform { $0.syncMetadata.valueChangesAwaitingNews }
      #expect(awaited.count == stillAwaited)
    }

    @Test("A rename whose news were read while it was out waits for nothing")
    func renameHeardWhileOut() async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save { try $0.update(Conversation.self, id: Self.group) { $0.name = "Brunch" } }
      let rename = try #require(await harness.next())
      _ = try await DownstreamSyncTests().apply(
        [
          .conversationRename(
            ConversationEvent(
              conversation: Self.group, from: harness.me.id, time: Self.time, data: "Brunch"))
        ], to: harness)

      // when
      await harness.complete(rename, .success(.renamed(ConversationRename(name: "Brunch"))))

      // then
      let awaited = await harness.stack.sync.perform { $0.syncMetadata.valueChangesAwaitingNews }
      #expect(awaited.isEmpty)
    }

    /// A harness whose sync context has the self user's accepted connection with Ann, as the
    /// backend last said, and whose user blocked Ann, the backend answering that it did.
    static func blockedAnn() async throws -> TrackerHarness {
      let harness = TrackerHarness()
      let conversation = harness.fake.connectRemotely(with: ann)
      let connection = Connection(
        from: harness.me.id, to: ann, status: .accepted, conversationID: conversation,
        lastUpdate: time)
      try await harness.seedRemote([User(id: ann, name: "Ann"), connection])
      try harness.save { try $0.update(Connection.self, id: ann) { $0.status = .blocked } }
      let block = try #require(await harness.next())
      await harness.complete(
        block,
        .success(
          .connection(
            ConnectionPayload(
              from: harness.me.id, to: ann, status: .blocked, conversation: conversation ?? group,
              lastUpdate: time))))
      return harness
    }

    /// News of the self user's connection with Ann standing at `status`.
    nonisolated static func connectionNews(_ status: ConnectionStatus, me: UUID) -> EventPayload {
      .connection(
        ConnectionPayload(
          from: me, to: ann, status: status, conversation: group, lastUpdate: time))
    }

    @Test(
      "Older news of a connection whose new status was answered leave it as the answer set it, and the status's own news end the wait",
      arguments: zip([false, true], [1, 0]))
    func olderConnectionNewsPassOver(ownNewsRead: Bool, stillAwaited: Int) async throws {
      // given
      let harness = try await Self.blockedAnn()
      let older = Self.connectionNews(.accepted, me: harness.me.id)
      let own = Self.connectionNews(.blocked, me: harness.me.id)

      // when
      _ = try await DownstreamSyncTests().apply(ownNewsRead ? [older, own] : [older], to: harness)

      // then
      let (status, awaited) = await harness.stack.sync.perform {
        (
          $0.object(Connection.self, id: Self.ann)?.status,
          $0.syncMetadata.valueChangesAwaitingNews.count
        )
      }
      #expect(status == .blocked)
      #expect(awaited == stillAwaited)
    }

    @Test(
      "A status the backend held already, whose news were read before the request went, waits for no news, and newer news of the connection apply"
    )
    func statusHeldAlreadyLetsNewerNewsApply() async throws {
      // given: the user blocked Ann, which the backend applied; the user unblocks her, and
      // before the request goes the news of another device unblocking her are read; the
      // backend answers the unblock with a 204, as it held the status already
      let harness = TrackerHarness()
      let conversation = harness.fake.connectRemotely(with: Self.ann) ?? Self.group
      try await harness.seedRemote([
        User(id: Self.ann, name: "Ann"),
        Connection(
          from: harness.me.id, to: Self.ann, status: .accepted, conversationID: conversation,
          lastUpdate: Self.time),
      ])
      try harness.save { try $0.update(Connection.self, id: Self.ann) { $0.status = .blocked } }
      let block = try #require(await harness.next())
      await harness.complete(block, await harness.respond(to: block))
      let unblocked = harness.fake.version.rawValue + 1
      try harness.save { try $0.update(Connection.self, id: Self.ann) { $0.status = .accepted } }
      _ = try await DownstreamSyncTests().apply(
        [Self.connectionNews(.accepted, me: harness.me.id)], versions: [unblocked], to: harness)
      let unblock = try #require(await harness.next())
      await harness.complete(unblock, .success(.noContent, version: ServerVersion(unblocked)))

      // when: another device blocks Ann
      _ = try await DownstreamSyncTests().apply(
        [Self.connectionNews(.blocked, me: harness.me.id)], versions: [unblocked + 1],
        to: harness)

      // then
      let status = await harness.stack.sync.perform {
        $0.object(Connection.self, id: Self.ann)?.status
      }
      #expect(status == .blocked)
    }
  }
}
