import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import ParsingCore
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport
import UserParsing

@Suite("DownstreamSync", .tags(.sync, .parsing), .courier(timeBudget: .seconds(5)))
@MainActor
struct DownstreamSyncTests {
  nonisolated static let time = Date(timeIntervalSince1970: 1_800_000_000)

  /// A response holding one notification per event, each at the server's version of the same
  /// place in `versions` when it is given.
  static func page(_ events: [EventPayload], versions: [Int]? = nil, hasMore: Bool = false)
    -> TransportResponse
  {
    let notifications = events.enumerated().map { index, event in
      NotificationPayload(
        id: UUIDSource.current.next(), version: versions.flatMap { ServerVersion($0[index]) },
        events: [event])
    }
    return TransportResponse(
      status: 200,
      json: ["notifications": .array(notifications.map(\.jsonValue)), "has_more": .bool(hasMore)])
  }

  /// Applies `events` to the sync context of `harness` and saves; each is at the server's
  /// version of the same place in `versions` when it is given.
  func apply(_ events: [EventPayload], versions: [Int]? = nil, to harness: TrackerHarness)
    async throws -> NotificationApplication
  {
    let response = Self.page(events, versions: versions)
    let applied = try await harness.stack.sync.perform { context in
      let applied = try DownstreamSync().applyNotifications(response, since: nil, in: context)
      try context.save()
      return applied
    }
    await expectSettled(harness.stack.tracker)
    return applied
  }

  @Test("A connection event creates the connection and asks for the unknown user")
  func connection() async throws {
    // given
    let harness = TrackerHarness()
    let ann = UUID(101)
    let conversation = UUID(102)

    // when
    let applied = try await apply(
      [
        .connection(
          ConnectionPayload(
            from: harness.me.id, to: ann, status: .pending, conversation: conversation,
            lastUpdate: Self.time))
      ],
      to: harness)

    // then
    #expect(harness.ui.object(Connection.self, id: ann)?.status == .pending)
    #expect(applied.unknownUsers == [ann])
  }

  @Test("An accepted connection turns its connection conversation into a one-to-one")
  func acceptedConnection() async throws {
    // given
    let harness = TrackerHarness()
    let ann = UUID(103)
    let conversation = ConversationPayload(
      id: UUID(104), type: .connection, creator: harness.me.id, selfMember: harness.me.id,
      otherMembers: [], lastEventTime: Self.time)

    // when
    _ = try await apply(
      [
        .conversationCreate(
          ConversationEvent(
            conversation: conversation.id, from: harness.me.id, time: Self.time, data: conversation)
        ),
        .connection(
          ConnectionPayload(
            from: harness.me.id, to: ann, status: .accepted, conversation: conversation.id,
            lastUpdate: Self.time)),
      ], to: harness)

    // then
    #expect(harness.ui.object(Conversation.self, id: conversation.id)?.kind == .oneToOne)
  }

  @Test("Rename, join, leave and message events change the conversation they name")
  func conversationEvents() async throws {
    // given
    let harness = TrackerHarness()
    let ann = UUID(105)
    let bob = UUID(106)
    let id = UUID(107)
    let created = ConversationPayload(
      id: id, type: .group, name: "Old", creator: harness.me.id, selfMember: harness.me.id,
      otherMembers: [ann], lastEventTime: Self.time)
    let message = MessagePayload(
      nonce: UUID(108), conversation: id, from: ann, text: "Hi", time: Self.time)

    // when
    let applied = try await apply(
      [
        .conversationCreate(
          ConversationEvent(conversation: id, from: harness.me.id, time: Self.time, data: created)),
        .conversationRename(
          ConversationEvent(conversation: id, from: ann, time: Self.time, data: "New")),
        .memberJoin(ConversationEvent(conversation: id, from: ann, time: Self.time, data: [bob])),
        .memberLeave(ConversationEvent(conversation: id, from: ann, time: Self.time, data: [ann])),
        .messageAdd(ConversationEvent(conversation: id, from: ann, time: Self.time, data: message)),
      ], to: harness)

    // then
    let conversation = try #require(harness.ui.object(Conversation.self, id: id))
    #expect(conversation.name == "New")
    #expect(conversation.participantIDs == [harness.me.id, bob])
    #expect(harness.ui.messages(in: conversation).map(\.text) == ["Hi"])
    #expect(harness.ui.messages(in: conversation).first?.deliveryState == .sent)
    #expect(applied.unknownUsers == [ann, bob])
  }

  @Test("Events about conversations nobody knows, and unknown event types, are skipped and counted")
  func skipped() async throws {
    // given
    let harness = TrackerHarness()

    // when
    let applied = try await apply(
      [
        .conversationRename(
          ConversationEvent(
            conversation: UUID(109), from: harness.me.id, time: Self.time, data: "X")),
        .unknown(type: "team.create", raw: ["type": "team.create"]),
      ], to: harness)

    // then
    #expect(applied.skippedEvents == 2)
  }

  @Test(
    "A page names the known users whose profile its user.update events changed, not unknown ones")
  func updatedUsers() async throws {
    // given: Ann is known here, Bob is not
    let harness = TrackerHarness()
    let (ann, bob) = (UUID(101), UUID(102))
    try await harness.seedRemote([User(id: ann, name: "Ann")])

    // when
    let applied = try await apply(
      [
        .userUpdate(UserUpdatePayload(id: ann, name: "Annie")),
        .userUpdate(UserUpdatePayload(id: bob, name: "Bobby")),
      ], to: harness)

    // then
    #expect(applied.updatedUsers == [ann])
    #expect(applied.unknownUsers == [bob])
    #expect(harness.ui.object(User.self, id: ann)?.name == "Annie")
  }

  @Test(
    "A page names the users whose connection it shows accepted, known here or not, and not pending ones"
  )
  func acceptedContacts() async throws {
    // given: Ann and Bob are known here, Cat is not
    let harness = TrackerHarness()
    let (ann, bob, cat) = (UUID(101), UUID(102), UUID(103))
    try await harness.seedRemote([User(id: ann, name: "Ann"), User(id: bob, name: "Bob")])
    let events = zip([ann, bob, cat], [ConnectionStatus.accepted, .pending, .accepted]).enumerated()
      .map { index, pair in
        EventPayload.connection(
          ConnectionPayload(
            from: harness.me.id, to: pair.0, status: pair.1,
            conversation: UUID(110 + UInt64(index)),
            lastUpdate: Self.time))
      }

    // when
    let applied = try await apply(events, to: harness)

    // then
    #expect(applied.acceptedContacts == [ann, cat])
    #expect(applied.unknownUsers == [cat])
  }

  @Test("A list of users is applied only for the users the caller keeps")
  func usersKept() async throws {
    // given
    let harness = TrackerHarness()
    let (ann, bob) = (UUID(101), UUID(102))
    let users = zip([ann, bob], ["Ann", "Bob"]).map { UserPayload(id: $0, name: $1, accentID: 0) }
    let response = TransportResponse(status: 200, json: .array(users.map(\.jsonValue)))

    // when
    try await harness.stack.sync.perform { context in
      try DownstreamSync().applyUsers(response, in: context) { $0 == bob }
      try context.save()
    }
    await expectSettled(harness.stack.tracker)

    // then
    #expect(harness.ui.object(User.self, id: ann) == nil)
    #expect(harness.ui.object(User.self, id: bob)?.name == "Bob")
  }

  /// Seeds group G, with the self user and `member`, as the backend last said it.
  static func seedGroup(with member: UUID, in harness: TrackerHarness) async throws
    -> Conversation
  {
    let group = Conversation(
      id: UUID(110), kind: .group, name: "G", creatorID: harness.me.id,
      participantIDs: [harness.me.id, member], lastEventTime: time)
    try await harness.seedRemote([group])
    return group
  }

  /// Expects `request` to be the member call that adds `user` to group `group`.
  static func expect(
    _ request: UpstreamRequest?, toAdd user: UUID, to group: UUID,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(
      request?.request.path == "/conversations/\(group.uuidString.lowercased())/members",
      sourceLocation: sourceLocation)
    #expect(
      request?.json?["users"] == [.string(user.uuidString.lowercased())],
      sourceLocation: sourceLocation)
  }

  @Test("A server value does not overwrite a local change that has not been pushed")
  func localChangeWins() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Local" } }

    // when
    _ = try await apply(
      [.userUpdate(UserUpdatePayload(id: harness.me.id, name: "Server", accentID: 9))], to: harness)

    // then
    #expect(harness.ui.selfUser?.name == "Local")
    #expect(harness.ui.selfUser?.accentID == 9)
  }

  @Test(
    "Members another user added or removed while a local member change waits are taken in, and the local change is kept",
    arguments: [true, false])
  func membershipBesidePendingChange(remoteJoin: Bool) async throws {
    // given: the group has Ann; here, Bob is being added and the request has not gone yet
    let harness = TrackerHarness()
    let (ann, bob, cleo) = (UUID(111), UUID(112), UUID(113))
    let group = try await Self.seedGroup(with: ann, in: harness)
    try harness.save {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob) }
    }
    await expectSettled(harness.stack.tracker)
    let event = ConversationEvent(
      conversation: group.id, from: ann, time: Self.time, data: remoteJoin ? [cleo] : [ann])

    // when
    _ = try await apply([remoteJoin ? .memberJoin(event) : .memberLeave(event)], to: harness)
    let request = await harness.next()

    // then
    let expected: Set<UUID> = remoteJoin ? [harness.me.id, ann, bob, cleo] : [harness.me.id, bob]
    #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
    Self.expect(request, toAdd: bob, to: group.id)
  }

  @Test(
    "A member added here and not yet sent stays added and is sent, though news then told of another user adding and removing them"
  )
  func unsentMemberOutlivesNewsThatAgreedFirst() async throws {
    // given: here, Bob is being added and the request has not gone yet
    let harness = TrackerHarness()
    let (ann, bob) = (UUID(111), UUID(112))
    let group = try await Self.seedGroup(with: ann, in: harness)
    try harness.save {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob) }
    }
    await expectSettled(harness.stack.tracker)
    let event = ConversationEvent(conversation: group.id, from: ann, time: Self.time, data: [bob])

    // when: Ann added Bob, then took him out, on the server before the addition reaches it
    _ = try await apply([.memberJoin(event), .memberLeave(event)], versions: [5, 6], to: harness)
    let request = await harness.next()

    // then: the addition reaches the server after both, so Bob is in
    #expect(
      harness.ui.object(Conversation.self, id: group.id)?.participantIDs.contains(bob) == true)
    Self.expect(request, toAdd: bob, to: group.id)
  }

  @Test(
    "A member added here stays added and is sent after another member change's answer, though news read while that change was out agreed with the addition and later news undid it"
  )
  func memberOutlivesAnswerAfterNewsThatAgreed() async throws {
    // given: here, Bob is added and Ann taken out; the removal of Ann goes first, and while
    // it is out, news tell that another member added Bob
    let harness = TrackerHarness()
    let (ann, bob, cleo) = (UUID(111), UUID(112), UUID(113))
    let group = try await Self.seedGroup(with: ann, in: harness)
    try harness.save {
      try $0.update(Conversation.self, id: group.id) {
        $0.participantIDs.insert(bob)
        $0.participantIDs.remove(ann)
      }
    }
    await expectSettled(harness.stack.tracker)
    let removal = try #require(await harness.next())
    let added = ConversationEvent(conversation: group.id, from: cleo, time: Self.time, data: [bob])
    _ = try await apply([.memberJoin(added)], versions: [5], to: harness)
    await harness.complete(
      removal,
      .success(.membersChanged(MembersChanged(userIDs: [ann])), version: ServerVersion(6)))

    // when: news of Bob's removal by that member, made before the user's addition reached
    // the server, are read after the answer
    _ = try await apply([.memberLeave(added)], versions: [7], to: harness)
    let request = await harness.next()

    // then: the addition goes, and reaches the server after the removal
    #expect(
      harness.ui.object(Conversation.self, id: group.id)?.participantIDs.contains(bob) == true)
    Self.expect(request, toAdd: bob, to: group.id)
  }

  @Test(
    "A group rename made here and not yet sent stays and is sent, though news then told of the same name and a later one"
  )
  func unsentRenameOutlivesNewsThatAgreedFirst() async throws {
    // given: here, the group is renamed to "H" and the request has not gone yet
    let harness = TrackerHarness()
    let ann = UUID(111)
    let group = try await Self.seedGroup(with: ann, in: harness)
    try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "H" } }
    await expectSettled(harness.stack.tracker)
    let same = ConversationEvent(conversation: group.id, from: ann, time: Self.time, data: "H")
    let later = ConversationEvent(conversation: group.id, from: ann, time: Self.time, data: "I")

    // when: Ann renamed it to "H", then to "I", on the server before the rename reaches it
    _ = try await apply(
      [.conversationRename(same), .conversationRename(later)], versions: [5, 6], to: harness)
    let request = await harness.next()

    // then: the rename reaches the server after both, so the group is "H"
    #expect(harness.ui.object(Conversation.self, id: group.id)?.name == "H")
    #expect(request?.request.path == "/conversations/\(group.id.uuidString.lowercased())")
    #expect(request?.json?["name"] == .string("H"))
  }

  @Test(
    "News that the self user left a group this device is leaving settle the leaving, so a later refusal cannot bring the group back"
  )
  func leaveSettledByNews() async throws {
    // given: the user leaves; the request goes and its answer is lost
    let harness = TrackerHarness()
    let group = Conversation(
      id: UUID(110), kind: .group, name: "G", creatorID: harness.me.id,
      participantIDs: [harness.me.id, UUID(111)], lastEventTime: Self.time)
    try await harness.seedRemote([group])
    try harness.save { try $0.delete(Conversation.self, id: group.id) }
    let leave = try #require(await harness.next())
    await harness.complete(
      leave,
      .temporary(
        BackendFailure(responseClass: .temporary, transportError: .network(.connectionLost))))

    // when
    let event = ConversationEvent(
      conversation: group.id, from: harness.me.id, time: Self.time, data: [harness.me.id])
    _ = try await apply([.memberLeave(event)], to: harness)

    // then
    #expect(await harness.localChanges(Conversation.self).isEmpty)
    #expect(await harness.next(at: .seconds(60)) == nil)
    #expect(harness.ui.object(Conversation.self, id: group.id) == nil)
  }

  @Test(
    "Being removed from a group drops its unsent changes here and names each of them, leaving other groups' alone"
  )
  func removedFromGroup() async throws {
    // given: a rename, a message and a deletion of the group unsent, a message of Ann's, and
    // another group's unsent message
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    let group = harness.make.conversation(creator: ann, participants: [harness.me])
    let other = harness.make.conversation(creator: harness.me)
    let theirs = harness.make.message(in: group, from: ann, deliveryState: .sent)
    let mine = harness.make.message(in: group, from: harness.me, deliveryState: .sent)
    try await harness.seedRemote([ann, group, other, theirs, mine])
    let unsent = harness.make.message(in: group, from: harness.me)
    let elsewhere = harness.make.message(in: other, from: harness.me)
    try harness.insert([unsent, elsewhere])
    try harness.save { context in
      try context.update(Conversation.self, id: group.id) { $0.name = "Ours" }
      try context.delete(Message.self, id: mine.id)
    }

    // when
    let removal = ConversationEvent(
      conversation: group.id, from: ann.id, time: Self.time, data: [harness.me.id])
    let applied = try await apply([.memberLeave(removal)], to: harness)

    // then
    let rename = SyncQueueSnapshot.Item(
      object: group.reference, kind: .update, keys: KeySet([.name], of: Conversation.self))
    let post = SyncQueueSnapshot.Item(object: unsent.reference, kind: .insert)
    let deletion = SyncQueueSnapshot.Item(object: mine.reference, kind: .delete)
    #expect(
      applied.droppedChanges == [
        DroppedChange(item: rename, conversation: group.id),
        DroppedChange(item: post, conversation: group.id),
        DroppedChange(item: deletion, conversation: group.id),
      ])
    #expect(harness.ui.object(Message.self, id: unsent.id) == nil)
    let messages = await harness.localChanges(Message.self)
    #expect(messages.inserted == [elsewhere.id])
    #expect(messages.deleted.isEmpty)
  }

  @Test(
    "News of the self user's removal older than an answer about the group keep the group and its unsent change; newer ones drop them",
    arguments: [(answeredAt: 7, kept: true), (answeredAt: 3, kept: false)])
  func removalOlderThanAnAnswer(answeredAt: Int, kept: Bool) async throws {
    // given: the backend answered a member change of the group at `answeredAt`, and the user
    // renamed the group since, unsent
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    let group = harness.make.conversation(creator: ann, participants: [harness.me])
    try await harness.seedRemote([ann, group])
    try await harness.stack.sync.perform { context in
      context.syncMetadata.awaitNews(
        of: .member(ann.id, conversation: group.id), answeredAt: answeredAt,
        setting: .member(true))
      try context.save()
    }
    try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Ours" } }

    // when: news at version 5 say Ann took the self user out
    let removal = ConversationEvent(
      conversation: group.id, from: ann.id, time: Self.time, data: [harness.me.id])
    let applied = try await apply([.memberLeave(removal)], versions: [5], to: harness)

    // then: an answer after the news shows the user back in the group by then
    #expect(applied.droppedChanges.isEmpty == kept)
    #expect((harness.ui.object(Conversation.self, id: group.id)?.name == "Ours") == kept)
    #expect(
      await harness.localChanges(Conversation.self).updatedKeys[group.id] == (kept ? [.name] : nil))
  }

  @Test(
    "A group kept across the self user's removal and return takes the members added while the user was out, and keeps the user's own change"
  )
  func returnMergesMembersAddedMeanwhile() async throws {
    // given: the backend answered a rename of the group at version 7, and the user took Ann
    // out since, unsent
    let harness = TrackerHarness()
    let ann = harness.make.user(name: "Ann")
    let bob = harness.make.user(name: "Bob")
    let group = harness.make.conversation(creator: ann, participants: [harness.me, ann])
    try await harness.seedRemote([ann, bob, group])
    try await harness.stack.sync.perform { context in
      context.syncMetadata.awaitNews(
        of: .groupName(group.id), answeredAt: 7, setting: .name(group.name))
      try context.save()
    }
    try harness.save {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.remove(ann.id) }
    }

    // when: news say Ann took the self user out (5), and added them back (6) after adding Bob
    let removal = ConversationEvent(
      conversation: group.id, from: ann.id, time: Self.time, data: [harness.me.id])
    let held = ConversationPayload(
      id: group.id, type: .group, name: group.name, creator: ann.id, selfMember: harness.me.id,
      otherMembers: [ann.id, bob.id], lastEventTime: Self.time)
    _ = try await apply(
      [
        .memberLeave(removal),
        .conversationCreate(
          ConversationEvent(conversation: group.id, from: ann.id, time: Self.time, data: held)),
        .memberJoin(removal),
      ], versions: [5, 6, 6], to: harness)

    // then: Bob joins here, and Ann stays out, still to be sent
    #expect(
      harness.ui.object(Conversation.self, id: group.id)?.participantIDs == [harness.me.id, bob.id])
    let changes = await harness.localChanges(Conversation.self)
    #expect(changes.updatedKeys[group.id] == [.participantIDs])
    #expect(changes.originals[group.id]?.participantIDs == [harness.me.id, ann.id, bob.id])
  }

  @Test(
    "A group left, rejoined by another member's hand and left again is left on the server, though the first leave's answer comes after"
  )
  func leftAgainAfterAddedBack() async throws {
    // given: the first leave is applied; Ann adds the self user back, the client hears of both,
    // and the user leaves again before the first leave's answer comes
    let harness = TrackerHarness()
    let ann = harness.fake.insertUser(name: "Ann")
    let group = harness.fake.createGroupRemotely(name: "G", by: ann, members: [harness.me.id])
    try await pullNotifications(into: harness)
    await expectSettled(harness.stack.tracker)
    try harness.save { try $0.delete(Conversation.self, id: group) }
    let firstLeave = try #require(await harness.next())
    let answer = await harness.respond(to: firstLeave)
    harness.fake.addMembersRemotely([harness.me.id], to: group, by: ann)
    try await pullNotifications(into: harness)
    await expectSettled(harness.stack.tracker)
    let rejoined = harness.ui.object(Conversation.self, id: group) != nil
    try harness.save { try $0.delete(Conversation.self, id: group) }

    // when
    await harness.complete(firstLeave, answer)
    let afterwards = await harness.answerAll()

    // then: the second leave went, and the server no longer has the self user
    #expect(rejoined)
    #expect(afterwards.map(\.endpoint) == [firstLeave.endpoint])
    #expect(!harness.fake.members(of: group).contains(harness.me.id))
    #expect(await harness.localChanges(Conversation.self).isEmpty)
  }

  @Test(
    "News of a group the user is leaving are kept, so giving up a refused leave brings back the group the server has"
  )
  func newsDuringLeave() async throws {
    // given: the user leaves; while the leave is out, another member renames the group and
    // adds someone
    let harness = TrackerHarness()
    let (ann, bob) = (UUID(111), UUID(112))
    let group = try await Self.seedGroup(with: ann, in: harness)
    try harness.save { try $0.delete(Conversation.self, id: group.id) }
    let leave = try #require(await harness.next())
    let rename = ConversationEvent(conversation: group.id, from: ann, time: Self.time, data: "H")
    let join = ConversationEvent(conversation: group.id, from: ann, time: Self.time, data: [bob])
    _ = try await apply([.conversationRename(rename), .memberJoin(join)], to: harness)
    await harness.refuse(leave)

    // when
    let upstream = harness.upstream
    let discarded = try await harness.stack.sync.perform { context throws(SaveError) in
      let discarded = upstream.discardFailedChange(of: group.reference, in: context)
      try context.save()
      return discarded
    }

    // then
    let back = await harness.stack.sync.perform { $0.object(Conversation.self, id: group.id) }
    #expect(discarded)
    #expect(back?.name == "H")
    #expect(back?.participantIDs == [harness.me.id, ann, bob])
    #expect(await harness.queue().isEmpty)
  }

  @Test(
    "A member another user removed while a member request was out stays removed after its answer, unless added back here",
    arguments: [false, true])
  func remoteRemovalDuringMemberRequest(addedBackHere: Bool) async throws {
    // given: Bob's removal is in flight when another user removes Ann, after the backend
    // applied it
    let harness = TrackerHarness()
    let (ann, bob) = (UUID(111), UUID(112))
    let group = Conversation(
      id: UUID(110), kind: .group, name: "G", creatorID: harness.me.id,
      participantIDs: [harness.me.id, ann, bob], lastEventTime: Self.time)
    try await harness.seedRemote([group])
    try harness.save {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.remove(bob) }
    }
    let removal = try #require(await harness.next())
    let event = ConversationEvent(conversation: group.id, from: bob, time: Self.time, data: [ann])
    _ = try await apply([.memberLeave(event)], versions: [2], to: harness)
    if addedBackHere {
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(ann) }
      }
    }

    // when
    await harness.complete(
      removal, .success(.membersChanged(MembersChanged(userIDs: [bob])), version: ServerVersion(1)))

    // then
    let next = await harness.next()
    if addedBackHere {
      #expect(next?.endpoint == .addMembers(conversation: group.id, MemberList(users: [ann])))
    } else {
      #expect(next == nil)
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == [harness.me.id])
    }
  }

  @Test("A 404 for a since id asks for a full fetch; other failures name the request")
  func failures() async throws {
    // given
    let harness = TrackerHarness()
    let since = UUID(110)

    // when
    let errors = await harness.stack.sync.perform { context in
      [TransportResponse(status: 404), TransportResponse(status: 500)].map { response in
        Result { () throws(DownstreamError) in
          try DownstreamSync().applyNotifications(response, since: since, in: context)
        }
      }
    }

    // then
    #expect(throws: DownstreamError.unknownSince(since)) { try errors[0].get() }
    #expect(throws: DownstreamError.status(.getNotifications, 500, nil)) { try errors[1].get() }
  }

  @Test(
    "A page that says the backend has more but does not move past where it started is refused",
    arguments: zip([nil, UUID(130)] as [UUID?], [[], [UUID(129), UUID(130)]] as [[UUID]]))
  func pageThatDoesNotAdvance(since: UUID?, ids: [UUID]) {
    // given: an empty page, or the page before `since` again
    let notifications = ids.map { NotificationPayload(id: $0, events: []).jsonValue }
    let response = TransportResponse(
      status: 200, json: ["notifications": .array(notifications), "has_more": true])

    // when
    let read = Result { () throws(DownstreamError) in
      try DownstreamSync().readNotifications(response, since: since)
    }

    // then
    #expect(throws: DownstreamError.pageDidNotAdvance(.getNotifications, after: since)) {
      try read.get()
    }
  }

  @Test(
    "A page that ends where the walk read from before is refused, whether or not it says more",
    arguments: [true, false])
  func pageThatLeadsBack(hasMore: Bool) {
    // given: the walk read from 128, then 129; the page after 130 ends on 129 again
    let since = UUID(130)
    let back = NotificationPayload(id: UUID(129), events: []).jsonValue
    let response = TransportResponse(
      status: 200, json: ["notifications": [back], "has_more": .bool(hasMore)])

    // when
    let read = Result { () throws(DownstreamError) in
      try DownstreamSync().readNotifications(
        response, since: since, earlier: [UUID(128), UUID(129)])
    }

    // then
    #expect(throws: DownstreamError.pageDidNotAdvance(.getNotifications, after: since)) {
      try read.get()
    }
  }

  @Test("A last page may bring nothing new, and a page that moves on may say there is more")
  func pagesThatEndOrAdvance() throws {
    // given
    let since = UUID(130)
    let same = NotificationPayload(id: since, events: []).jsonValue
    let next = NotificationPayload(id: UUID(131), events: []).jsonValue
    let last = TransportResponse(status: 200, json: ["notifications": [same], "has_more": false])
    let more = TransportResponse(
      status: 200, json: ["notifications": [same, next], "has_more": true])

    // when
    let pages = try [last, more].map { try DownstreamSync().readNotifications($0, since: since) }

    // then
    #expect(pages.map(\.cursor) == [since, UUID(131)])
  }

  @Test("A page already read is applied as its response would be")
  func applyPage() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(name: "Old", creator: harness.me)
    try await harness.seedRemote([group])
    let rename = NotificationPayload(
      id: UUID(120),
      events: [
        .conversationRename(
          ConversationEvent(
            conversation: group.id, from: harness.me.id, time: Self.time, data: "New"))
      ])
    let page = Page(elements: [rename], failures: [], hasMore: true)

    // when
    let applied = try await harness.stack.sync.perform { context in
      let applied = DownstreamSync().apply(page, since: UUID(119), in: context)
      try context.save()
      return applied
    }
    await expectSettled(harness.stack.tracker)

    // then
    #expect(harness.ui.object(Conversation.self, id: group.id)?.name == "New")
    #expect(applied.lastID == UUID(120))
    #expect(applied.hasMore)
    #expect(applied.count == 1)
  }

  @Test("The next page is asked for after the last id applied, with the page size")
  func nextRequest() throws {
    // given
    let since = UUID(111)

    // when
    let request = try DownstreamSync(pageSize: 50).notifications(since: since).request()

    // then
    #expect(
      request.description == "GET /notifications?since=\(since.uuidString.lowercased())&size=50")
  }

  @Test(
    "Users are fetched in calls of at most the most ids the backend answers, each id once, in order",
    arguments: zip([0, 1, 100, 101, 250], [[], [1], [100], [100, 1], [100, 100, 50]]))
  func userBatches(count: Int, sizes: [Int]) {
    // given
    let ids = Set((0..<count).map { UUID(UInt64(1_000 + $0)) })

    // when
    let batches = DownstreamSync().userBatches(ids)

    // then
    let asked = batches.map { endpoint -> [UUID] in
      guard case .getUsers(let ids) = endpoint else { return [] }
      return ids
    }
    #expect(asked.map(\.count) == sizes)
    #expect(Array(asked.joined()) == ids.sorted())
  }

  @Test(
    "Payloads map to models, with an unknown connection status kept as invalid",
    arguments: zip(
      [ConnectionStatus.accepted, .missingLegalholdConsent],
      [Connection.Status.accepted, .missingLegalholdConsent]))
  func mapping(_ status: ConnectionStatus, _ expected: Connection.Status) {
    // given
    let payload = ConnectionPayload(
      from: UUID(112), to: UUID(113), status: status, conversation: UUID(114), lastUpdate: Self.time
    )

    // when
    let connection = PayloadMapping.connection(payload)

    // then
    #expect(connection.status == expected)
    #expect(connection.conversationID == payload.conversation)
  }
}
