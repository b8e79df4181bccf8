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
import Transport
import UserParsing

extension DownstreamSyncTests {
  /// News of a change the user made may be read after its answer, behind older news of the same
  /// key: news below the answer's version leave the key where the answer put it.
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

    /// The server's version of the answers these tests give.
    nonisolated static let answered = 5

    /// Adds Bob to Lunch here and has the backend answer, at ``answered``, that it added him
    /// (or, with `.noContent`, that he was in already), with `news` read while the request was
    /// out.
    static func addBob(
      in harness: TrackerHarness, newsWhileOut news: [EventPayload] = [],
      answer: EndpointResponse = .membersChanged(MembersChanged(userIDs: [bob]))
    ) async throws {
      try harness.save {
        try $0.update(Conversation.self, id: group) { $0.participantIDs.insert(bob) }
      }
      let addition = try #require(await harness.next())
      if !news.isEmpty {
        _ = try await DownstreamSyncTests().apply(
          news, versions: news.map { _ in answered }, to: harness)
      }
      await harness.complete(addition, .success(answer, version: ServerVersion(answered)))
    }

    /// A member event in Lunch.
    nonisolated static func event(_ users: [UUID], from author: UUID, joined: Bool)
      -> EventPayload
    {
      let change = ConversationEvent(conversation: group, from: author, time: time, data: users)
      return joined ? .memberJoin(change) : .memberLeave(change)
    }

    /// A harness whose user left Lunch, the backend answering at ``answered`` that it took them
    /// out.
    static func leftLunch() async throws -> TrackerHarness {
      let harness = try await lunch()
      try harness.save { try $0.delete(Conversation.self, id: group) }
      let leave = try #require(await harness.next())
      await harness.complete(
        leave,
        .success(
          .membersChanged(MembersChanged(userIDs: [harness.me.id])),
          version: ServerVersion(answered)))
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

    /// A harness whose user renamed Lunch to Brunch, the backend answering at ``answered``.
    static func brunchAnswered() async throws -> TrackerHarness {
      let harness = try await lunch()
      try harness.save { try $0.update(Conversation.self, id: group) { $0.name = "Brunch" } }
      let rename = try #require(await harness.next())
      await harness.complete(
        rename,
        .success(.renamed(ConversationRename(name: "Brunch")), version: ServerVersion(answered)))
      return harness
    }

    /// A rename of Lunch to `name` by `author`.
    nonisolated static func renamed(_ name: String, by author: UUID) -> EventPayload {
      .conversationRename(
        ConversationEvent(conversation: group, from: author, time: time, data: name))
    }

    /// Applies `news`, each at the version `versions` gives it.
    static func apply(_ news: [EventPayload], at versions: [Int], to harness: TrackerHarness)
      async throws -> NotificationApplication
    {
      try await DownstreamSyncTests().apply(news, versions: versions, to: harness)
    }

    /// What the sync context holds: Lunch's members, and the keys awaiting news.
    static func state(of harness: TrackerHarness) async -> (
      Set<UUID>?, [AwaitedKey: AwaitedVersion]
    ) {
      await harness.stack.sync.perform {
        ($0.object(Conversation.self, id: group)?.participantIDs, $0.syncMetadata.awaitedNews)
      }
    }

    @Test(
      "An answered member change awaits the news of every member it listed at the answer's version",
      arguments: [
        EndpointResponse.membersChanged(MembersChanged(userIDs: [bob])), .noContent,
      ])
    func answeredAdditionAwaitsItsNews(answer: EndpointResponse) async throws {
      // given
      let harness = try await Self.lunch()

      // when
      try await Self.addBob(in: harness, answer: answer)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(awaited == [.member(Self.bob, conversation: Self.group): .answered(Self.answered)])
    }

    @Test("An answer that does not say its version awaits no news")
    func answerWithoutVersion() async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save { try $0.update(Conversation.self, id: Self.group) { $0.name = "Brunch" } }
      let rename = try #require(await harness.next())

      // when
      await harness.complete(rename, .success(.renamed(ConversationRename(name: "Brunch"))))

      // then
      let (_, awaited) = await Self.state(of: harness)
      #expect(awaited.isEmpty)
    }

    @Test(
      "News of a member below an answered change's version leave them where the answer put them, and news at it or later apply and end the wait",
      arguments: [
        ([(false, 4)], true, 1), ([(false, 4), (true, 5)], true, 0),
        ([(false, 4), (false, 6)], false, 0),
      ])
    func memberNewsAgainstTheAnswer(news: [(joined: Bool, version: Int)], bobIn: Bool, left: Int)
      async throws
    {
      // given: Bob's addition answered at 5; news read after it tell of Ann's removal of Bob
      // before it, then of the addition itself, or of Ann's removal of him after it
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)
      let events = news.map { Self.event([Self.bob], from: Self.ann, joined: $0.joined) }

      // when
      _ = try await Self.apply(events, at: news.map(\.version), to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members?.contains(Self.bob) == bobIn)
      #expect(awaited.count == left)
      #expect(await harness.next() == nil)
    }

    @Test(
      "A member the user took out and added back, both answered, stays in when a page tells of both while another member change is out"
    )
    func memberAddedBackWhileAnotherChangeIsOut() async throws {
      // given: Ann taken out of Lunch (answered at 3) and added back (answered at 5); then
      // Bob's addition goes, and its answer has not come
      let harness = try await Self.lunch()
      for (joined, version) in [(false, 3), (true, 5)] {
        try harness.save {
          try $0.update(Conversation.self, id: Self.group) {
            if joined {
              $0.participantIDs.insert(Self.ann)
            } else {
              $0.participantIDs.remove(Self.ann)
            }
          }
        }
        let request = try #require(await harness.next())
        await harness.complete(
          request,
          .success(
            .membersChanged(MembersChanged(userIDs: [Self.ann])), version: ServerVersion(version)))
      }
      try harness.save {
        try $0.update(Conversation.self, id: Self.group) { $0.participantIDs.insert(Self.bob) }
      }
      let addition = try #require(await harness.next())

      // when: a page tells of the removal and of the addition back
      _ = try await Self.apply(
        [
          Self.event([Self.ann], from: harness.me.id, joined: false),
          Self.event([Self.ann], from: harness.me.id, joined: true),
        ], at: [3, 5], to: harness)
      await harness.complete(
        addition,
        .success(.membersChanged(MembersChanged(userIDs: [Self.bob])), version: ServerVersion(6)))

      // then
      let (members, _) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(
        harness.ui.object(Conversation.self, id: Self.group)?.participantIDs.contains(Self.ann)
          == true)
      #expect(await harness.next() == nil)
    }

    @Test("An answered change whose news were read while it was out lets later news apply")
    func answeredChangeHeardWhileOut() async throws {
      // given: the news of Bob's addition read while it was out
      let harness = try await Self.lunch()
      try await Self.addBob(
        in: harness, newsWhileOut: [Self.event([Self.bob], from: harness.me.id, joined: true)])

      // when: Ann removes Bob after it
      _ = try await Self.apply(
        [Self.event([Self.bob], from: Self.ann, joined: false)], at: [6], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann])
      #expect(awaited.isEmpty)
    }

    @Test("News of members no answered change names apply while others wait")
    func otherMembersApply() async throws {
      // given
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)

      // when
      _ = try await Self.apply(
        [Self.event([Self.ann, Self.bob], from: Self.ann, joined: false)], at: [4], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.bob])
      #expect(awaited.count == 1)
    }

    @Test("News of the group's making read after an answered member change keep that member")
    func creationNewsKeepTheMember() async throws {
      // given
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)

      // when
      _ = try await Self.apply(
        [Self.making(from: harness.me.id, me: harness.me.id)], at: [1], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == [harness.me.id, Self.ann, Self.bob])
      #expect(awaited.count == 1)
    }

    @Test(
      "News of the group's making keep an answered name if they are older than its answer, and bring theirs if newer",
      arguments: [(1, "Brunch"), (6, "Lunch")])
    func makingAgainstAnsweredName(version: Int, shown: String) async throws {
      // given: Lunch renamed to Brunch, answered at 5
      let harness = try await Self.brunchAnswered()

      // when
      _ = try await Self.apply(
        [Self.making(from: Self.ann, me: harness.me.id)], at: [version], to: harness)

      // then
      let name = await harness.stack.sync.perform {
        $0.object(Conversation.self, id: Self.group)?.name
      }
      #expect(name == shown)
    }

    @Test("News of the self user's removal from the group end its changes' wait")
    func removalFromTheGroupEndsTheWait() async throws {
      // given
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)

      // when
      _ = try await Self.apply(
        [Self.event([harness.me.id], from: Self.ann, joined: false)], at: [6], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == nil)
      #expect(awaited.isEmpty)
    }

    @Test(
      "News that take the self user out of a group and bring them back keep an answered name if they are older than its answer",
      arguments: [([2, 3], "Brunch"), ([6, 7], "Lunch")])
    func removalAndReturnAgainstAnsweredName(versions: [Int], shown: String) async throws {
      // given: Lunch renamed to Brunch, answered at 5
      let harness = try await Self.brunchAnswered()

      // when: Ann took the self user out and added them back
      _ = try await Self.apply(
        [
          Self.event([harness.me.id], from: Self.ann, joined: false),
          Self.making(from: Self.ann, me: harness.me.id),
        ], at: versions, to: harness)

      // then
      let name = await harness.stack.sync.perform {
        $0.object(Conversation.self, id: Self.group)?.name
      }
      #expect(name == shown)
    }

    @Test(
      "News that take the self user out of a group and bring them back keep an answered member addition if they are older than its answer",
      arguments: [([2, 3], true), ([6, 7], false)])
    func removalAndReturnAgainstAnsweredAddition(versions: [Int], bobIn: Bool) async throws {
      // given: Bob added to Lunch, answered at 5
      let harness = try await Self.lunch()
      try await Self.addBob(in: harness)

      // when: Ann took the self user out and added them back
      _ = try await Self.apply(
        [
          Self.event([harness.me.id], from: Self.ann, joined: false),
          Self.making(from: Self.ann, me: harness.me.id),
        ], at: versions, to: harness)

      // then
      let (members, _) = await Self.state(of: harness)
      #expect(members?.contains(Self.bob) == bobIn)
    }

    @Test(
      "A leave answered at a version older than news of the self user's return, read while it was out, brings the group back",
      arguments: [(7, true), (9, false)])
    func leaveOlderThanNewsOfReturn(answeredAt version: Int, groupBack: Bool) async throws {
      // given: the user leaves Lunch, and news that Ann added them back, at 8, are read while
      // the leave is out
      let harness = try await Self.lunch()
      try harness.save { try $0.delete(Conversation.self, id: Self.group) }
      let leave = try #require(await harness.next())
      _ = try await Self.apply(
        [Self.making(from: Self.ann, me: harness.me.id)], at: [8], to: harness)

      // when: the backend answers that the self user was out already
      await harness.complete(leave, .success(.noContent, version: ServerVersion(version)))

      // then
      let (members, _) = await Self.state(of: harness)
      #expect((members == [harness.me.id, Self.ann]) == groupBack)
      #expect((members == nil) == !groupBack)
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
        context.syncMetadata.awaitNews(of: .deletedMessage(nonce), answeredAt: Self.answered)
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
      let applied = try await Self.apply(events, at: [4, 5], to: harness)

      // then
      #expect(harness.ui.object(Message.self, id: nonce) == nil)
      #expect(applied.skippedEvents == 0)
      let awaited = await harness.stack.sync.perform {
        $0.syncMetadata.isAwaitingNews(of: .deletedMessage(nonce))
      }
      #expect(awaited == stillAwaited)
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
      let applied = try await Self.apply(news, at: [1, 5], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == nil)
      #expect(applied.skippedEvents == 0)
      #expect(awaited == (stillAwaited ? [.leftGroup(Self.group): .answered(Self.answered)] : [:]))
    }

    @Test("A leave the backend answered without taking the user out waits for no news")
    func leaveAlreadyDone() async throws {
      // given
      let harness = try await Self.lunch()
      try harness.save { try $0.delete(Conversation.self, id: Self.group) }
      let leave = try #require(await harness.next())

      // when
      await harness.complete(leave, .success(.noContent, version: ServerVersion(Self.answered)))

      // then
      let (_, awaited) = await Self.state(of: harness)
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
      _ = try await Self.apply(
        [
          Self.event([harness.me.id], from: Self.ann, joined: false),
          Self.making(from: Self.ann, me: harness.me.id),
          Self.event([harness.me.id], from: Self.ann, joined: true),
        ], at: [2, 3, 4], to: harness)

      // then
      let (members, awaited) = await Self.state(of: harness)
      #expect(members == nil)
      #expect(awaited == [.leftGroup(Self.group): .answered(Self.answered)])
    }

    /// A harness whose self user was renamed to Second with accent 4, answered at the version
    /// returned.
    static func selfUserRenamedToSecond() async throws -> (TrackerHarness, Int) {
      let harness = TrackerHarness()
      try harness.save {
        try $0.update(User.self, id: harness.me.id) {
          $0.name = "Second"
          $0.accentID = 4
        }
      }
      let update = try #require(await harness.next())
      await harness.complete(update, await harness.respond(to: update))
      return (harness, harness.fake.version.rawValue)
    }

    @Test(
      "A rename of the self user answered before its news leaves older news of the name and accent without effect until its own news",
      arguments: zip([false, true], [2, 0]))
    func olderNewsOfTheSelfUser(ownNewsRead: Bool, stillAwaited: Int) async throws {
      // given: the self user renamed to Second with accent 4, answered; news of an earlier
      // rename to First with accent 2 come after the answer
      let (harness, version) = try await Self.selfUserRenamedToSecond()
      let me = harness.me.id
      let news: [EventPayload] =
        [.userUpdate(UserUpdatePayload(id: me, name: "First", accentID: 2))]
        + (ownNewsRead ? [.userUpdate(UserUpdatePayload(id: me, name: "Second", accentID: 4))] : [])

      // when
      _ = try await Self.apply(news, at: [version - 1, version], to: harness)

      // then
      #expect(harness.ui.selfUser?.name == "Second")
      #expect(harness.ui.selfUser?.accentID == 4)
      let (_, awaited) = await Self.state(of: harness)
      #expect(awaited.count == stillAwaited)
      #expect(await harness.next() == nil)
    }

    @Test(
      "A profile of the self user read before a rename's answer keeps the answered name and accent, and one read after it brings its own",
      arguments: [(-1, "Second", 4), (1, "Third", 7)])
    func profileReadAgainstTheAnswer(readAt offset: Int, name: String, accent: Int) async throws {
      // given: the self user renamed to Second with accent 4, answered
      let (harness, version) = try await Self.selfUserRenamedToSecond()
      let profile = UserPayload(
        id: harness.me.id, name: offset < 0 ? "First" : "Third", accentID: offset < 0 ? 2 : 7)
      let response = TransportResponse(
        status: 200, json: profile.jsonValue,
        headers: [ServerVersion.header: "\(version + offset)"])

      // when
      try await harness.stack.sync.perform { context in
        try DownstreamSync().applySelfUser(response, in: context)
        try context.save()
      }
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.selfUser?.name == name)
      #expect(harness.ui.selfUser?.accentID == accent)
      #expect(await harness.next() == nil)
    }

    @Test(
      "A group rename answered before its news leaves an older rename without effect, applies a later one, and news at its version end the wait",
      arguments: [
        ([("Supper", 4)], "Brunch", 1), ([("Supper", 4), ("Brunch", 5)], "Brunch", 0),
        ([("Supper", 6)], "Supper", 0),
      ])
    func renameAgainstTheAnswer(news: [(name: String, version: Int)], shown: String, left: Int)
      async throws
    {
      // given
      let harness = try await Self.brunchAnswered()

      // when
      _ = try await Self.apply(
        news.map { Self.renamed($0.name, by: Self.ann) }, at: news.map(\.version), to: harness)

      // then
      let name = await harness.stack.sync.perform {
        $0.object(Conversation.self, id: Self.group)?.name
      }
      #expect(name == shown)
      let (_, awaited) = await Self.state(of: harness)
      #expect(awaited.count == left)
    }

    @Test("News that do not say their version apply, and leave the answer waiting")
    func unversionedNewsApply() async throws {
      // given
      let harness = try await Self.brunchAnswered()

      // when
      _ = try await DownstreamSyncTests().apply([Self.renamed("Supper", by: Self.ann)], to: harness)

      // then
      let name = await harness.stack.sync.perform {
        $0.object(Conversation.self, id: Self.group)?.name
      }
      #expect(name == "Supper")
      let (_, awaited) = await Self.state(of: harness)
      #expect(awaited == [.groupName(Self.group): .answered(Self.answered)])
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
              lastUpdate: time)), version: ServerVersion(answered)))
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
      _ = try await Self.apply(
        ownNewsRead ? [older, own] : [older], at: [Self.answered - 1, Self.answered], to: harness)

      // then
      let (status, awaited) = await harness.stack.sync.perform {
        ($0.object(Connection.self, id: Self.ann)?.status, $0.syncMetadata.awaitedNews.count)
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
