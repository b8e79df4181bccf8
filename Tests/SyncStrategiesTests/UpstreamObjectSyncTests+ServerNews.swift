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

extension UpstreamObjectSyncTests {
  @Suite("Answers that come after notifications about the same keys")
  @MainActor
  struct ServerNews {
    /// How this device hears of the backend's values while its request is out.
    enum HeardVia: Sendable, CaseIterable {
      /// The news alone.
      case news
      /// A catch-up's lists alone.
      case catchUp
      /// A catch-up's lists, then the news, which tell older changes after the newer lists.
      case catchUpThenNews
    }

    @Test(
      "A rename the backend applied before another member's renames takes their last name, and is sent once",
      arguments: [["Theirs"], ["Theirs", "G"]])
    func renameOvertakenByRemoteRenames(remoteNames: [String]) async throws {
      // given: the backend applied "Mine", then Ann's renames, and the client heard of them
      // before the answer to "Mine" arrived
      let harness = TrackerHarness()
      let (id, ann, rename, answer) = try await mineApplied(in: harness)
      for name in remoteNames { harness.fake.renameRemotely(id, to: name, by: ann) }
      try await pullNotifications(into: harness)

      // when
      await settle(rename, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let last = try #require(remoteNames.last)
      #expect(harness.ui.object(Conversation.self, id: id)?.name == last)
      #expect(harness.fake.conversation(id)?.name == last)
      #expect(harness.fake.journal.filter { $0.route == .renameConversation }.count == 1)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A name saved again back to the name in flight goes again as a change of its own, and stands over another member's rename heard after the answer"
    )
    func renameSavedAgainGoesAgain() async throws {
      // given: the backend applied "Mine", then Ann renamed the group; meanwhile the user
      // renamed it to "Other" and back to "Mine"; the answer to the first "Mine" arrives before
      // the news of Ann's rename
      let harness = TrackerHarness()
      let (id, ann, rename, answer) = try await mineApplied(in: harness)
      harness.fake.renameRemotely(id, to: "Theirs", by: ann)
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Other" } }
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }

      // when
      await settle(rename, with: answer, thenAllAt: .seconds(60), in: harness)
      try await pullNotifications(into: harness)

      // then
      #expect(harness.ui.object(Conversation.self, id: id)?.name == "Mine")
      #expect(harness.fake.conversation(id)?.name == "Mine")
      #expect(harness.fake.journal.filter { $0.route == .renameConversation }.count == 2)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A rename answered without the server's version, after news of a later rename, goes again under its key and yields to the later rename"
    )
    func renameAnsweredWithoutVersionGoesAgainUnderItsKey() async throws {
      // given: the backend applied "Mine", then Ann's rename; the client heard of both before
      // the answer to "Mine" came, and that answer does not say the server's version
      let harness = TrackerHarness()
      let (id, ann, rename, answer) = try await mineApplied(in: harness)
      guard case .success(let response, _?) = answer else {
        Issue.record("The fake did not answer the rename with its version")
        return
      }
      harness.fake.renameRemotely(id, to: "Theirs", by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(rename, with: .success(response), thenAllAt: .seconds(60), in: harness)

      // then
      #expect(harness.ui.object(Conversation.self, id: id)?.name == "Theirs")
      #expect(harness.fake.conversation(id)?.name == "Theirs")
      #expect(try await renameNotifications(of: id, in: harness) == ["Mine", "Theirs"])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A rename the backend applied after another member's rename keeps its name, and is sent once")
    func renameAppliedAfterRemoteRename() async throws {
      // given: Ann renamed the group, then the backend applied "Mine", and the client heard of
      // both before the answer to "Mine" arrived
      let harness = TrackerHarness()
      let (id, ann) = try await seedGroupWithAnn(in: harness)
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }
      let rename = try #require(await harness.next())
      harness.fake.renameRemotely(id, to: "Theirs", by: ann)
      let answer = await harness.respond(to: rename)
      try await pullNotifications(into: harness)

      // when
      await settle(rename, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      #expect(harness.ui.object(Conversation.self, id: id)?.name == "Mine")
      #expect(harness.fake.conversation(id)?.name == "Mine")
      #expect(harness.fake.journal.filter { $0.route == .renameConversation }.count == 1)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A self user's field the backend changed on another device after this device's change takes the other device's value, and is sent once",
      arguments: SelfFieldEdit.all)
    func selfUserChangeOvertakenByOtherDevice(edit: SelfFieldEdit) async throws {
      // given: Ada renames herself (or changes her accent) here; the backend applies it, then her
      // other device's change of the same field, and this device pulls both before the answer
      let harness = TrackerHarness()
      try harness.save {
        try $0.update(User.self, id: harness.me.id) { edit.apply(edit.here, &$0) }
      }
      let update = try #require(await harness.next())
      let answer = await harness.respond(to: update)
      _ = harness.fake.answer(.updateSelf(edit.update(edit.otherDevice)))
      try await pullNotifications(into: harness)

      // when
      await settle(update, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let here = try #require(harness.ui.object(User.self, id: harness.me.id))
      #expect(edit.read(here) == edit.otherDevice)
      #expect(harness.fake.user(harness.me.id).map { edit.read($0) } == edit.otherDevice)
      #expect(harness.fake.journal.filter { $0.route == .updateSelf }.count == 1)
      #expect(await harness.localChanges(User.self).isEmpty)
    }

    @Test(
      "A connection status the backend changed on another device after this device's change takes the other device's status, and is sent once",
      arguments: [
        (ConnectionStatus.accepted, ConnectionStatus.blocked, ConnectionStatus.accepted),
        (.blocked, .accepted, .blocked),
      ])
    func connectionChangeOvertakenByOtherDevice(
      start: ConnectionStatus, here: ConnectionStatus, otherDevice: ConnectionStatus
    ) async throws {
      // given: Ann's connection is `start`; this device changes it to `here`, the backend applies
      // it, then another device of the self user changes it to `otherDevice`, and this device
      // pulls both before the answer arrives
      let harness = TrackerHarness()
      let ann = try await connectedUser("Ann", status: start, in: harness)
      try harness.save { try $0.update(Connection.self, id: ann) { $0.status = .init(here) } }
      let change = try #require(await harness.next())
      let answer = await harness.respond(to: change)
      _ = harness.fake.answer(.updateConnection(user: ann, ConnectionUpdate(status: otherDevice)))
      try await pullNotifications(into: harness)

      // when
      await settle(change, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      #expect(harness.ui.object(Connection.self, id: ann)?.status == .init(otherDevice))
      #expect(harness.fake.connection(from: harness.me.id, to: ann)?.status == otherDevice)
      #expect(harness.fake.journal.filter { $0.route == .updateConnection }.count == 1)
      #expect(await harness.localChanges(Connection.self).isEmpty)
    }

    @Test(
      "An acceptance the backend applied before the contact asked again ends pending, as the backend does, and is sent once",
      arguments: HeardVia.allCases)
    func acceptanceOvertakenByNewRequest(heardVia: HeardVia) async throws {
      // given: Ann asked to connect; this device accepts and the backend applies it; Ann then
      // asks again, which puts the connection back to pending, the value it had before the
      // acceptance; this device hears that before the answer arrives, from the news, only
      // from a catch-up's list, without the news of its own acceptance, or from the list and
      // then the news, which tell the older acceptance after the newer list
      let harness = TrackerHarness()
      let ann = try await seedRequest(from: "Ann", in: harness)
      try harness.save { try $0.update(Connection.self, id: ann) { $0.status = .accepted } }
      let acceptance = try #require(await harness.next())
      let answer = await harness.respond(to: acceptance)
      #expect(harness.fake.requestConnectionRemotely(from: ann) != nil)
      if heardVia != .news {
        let listed = try #require(harness.fake.connection(from: harness.me.id, to: ann))
        let readAt = harness.fake.version
        try await harness.stack.sync.perform { context in
          _ = DownstreamSync().applyHeldState(
            connections: [listed], conversations: [], complete: false, readAt: readAt,
            in: context)
          try context.save()
        }
      }
      if heardVia != .catchUp {
        try await pullNotifications(into: harness)
      }

      // when
      await settle(acceptance, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      #expect(harness.fake.connection(from: harness.me.id, to: ann)?.status == .pending)
      #expect(harness.ui.object(Connection.self, id: ann)?.status == .pending)
      #expect(harness.fake.journal.filter { $0.route == .updateConnection }.count == 1)
      #expect(await harness.localChanges(Connection.self).isEmpty)
    }

    @Test(
      "A member added here whom another member removed after the backend added them stays out, and the addition is sent once"
    )
    func memberAdditionOvertakenByRemoteRemoval() async throws {
      // given: the user adds Bob; the backend adds him, then Ann removes him, and this device
      // pulls both before the answer to the addition arrives
      let harness = TrackerHarness()
      let (id, ann, _, addition, answer) = try await bobAddedThenRemovedByAnn(in: harness)

      // when
      await settle(addition, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.fake.journal.filter { $0.route == .addMembers }.count == 1)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A rename whose answer was lost goes again under its idempotency key, is applied once, and another member's later rename stands"
    )
    func lostRenameResentUnderItsKey() async throws {
      // given: the backend applied "Mine" but its answer was lost; Ann then renamed the group,
      // and this device pulled both news
      let harness = TrackerHarness()
      let (id, ann) = try await seedGroupWithAnn(in: harness)
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }
      let rename = try #require(await harness.next())
      await harness.loseAnswer(to: rename)
      harness.fake.renameRemotely(id, to: "Theirs", by: ann)
      try await pullNotifications(into: harness)

      // when
      let resend = try #require(await harness.next(at: .seconds(60)))
      await settle(
        resend, with: await harness.respond(to: resend), thenAllAt: .seconds(120), in: harness)

      // then
      #expect(resend.idempotencyKey == rename.idempotencyKey)
      #expect(harness.ui.object(Conversation.self, id: id)?.name == "Theirs")
      #expect(harness.fake.conversation(id)?.name == "Theirs")
      #expect(try await renameNotifications(of: id, in: harness) == ["Mine", "Theirs"])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A leave whose answer was lost goes again under its idempotency key, is applied once, and another member's later return stands"
    )
    func lostLeaveResentUnderItsKey() async throws {
      // given: the backend applied the leave but its answer was lost; Ann then added the self
      // user back, and this device has not read those news yet
      let harness = TrackerHarness()
      let (id, ann) = try await seedGroupWithAnn(in: harness)
      let me = harness.me.id
      try harness.save { try $0.delete(Conversation.self, id: id) }
      let leave = try #require(await harness.next())
      await harness.loseAnswer(to: leave)
      harness.fake.addMembersRemotely([me], to: id, by: ann)

      // when
      let resend = try #require(await harness.next(at: .seconds(60)))
      await harness.complete(resend, await harness.respond(to: resend), at: .seconds(60))
      try await pullNotifications(into: harness)

      // then
      #expect(resend.idempotencyKey == leave.idempotencyKey)
      #expect(Set(harness.fake.members(of: id)) == [me, ann])
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == [me, ann])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A rename of the self user whose answer was lost goes again as it went, under its key, when the user changed the accent since; the accent goes in a request of its own"
    )
    func lostRenameResentApartFromLaterKey() async throws {
      // given: the backend applied "Grace" but its answer was lost; the user then changed the
      // accent, which the same call would carry
      let harness = TrackerHarness()
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Grace" } }
      let rename = try #require(await harness.next())
      await harness.loseAnswer(to: rename)
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.accentID = 4 } }

      // when
      let sent = await harness.answerAll(at: .seconds(60))

      // then
      #expect(sent.map(\.endpoint) == [rename.endpoint, .updateSelf(SelfUpdate(accentID: 4))])
      #expect(sent.first?.idempotencyKey == rename.idempotencyKey)
      let names = harness.fake.notifications.flatMap(\.events).filter { event in
        if case .userUpdate(let update) = event { update.name != nil } else { false }
      }
      #expect(names.count == 1)
      #expect(harness.fake.user(harness.me.id)?.accentID == 4)
      #expect(await harness.localChanges(User.self).isEmpty)
    }

    @Test(
      "A change of the self user whose answer was lost goes again as it went when the user changed one of its keys since, so another device's later rename stands; the newer key follows on its own"
    )
    func lostChangeResentAsItWentAfterOneKeyChanged() async throws {
      // given: the backend applied "Grace" with accent 2 but the answer was lost; another device
      // then renamed the user "Hopper"; the user changed the accent to 5 here
      let harness = TrackerHarness()
      try harness.save {
        try $0.update(User.self, id: harness.me.id) {
          $0.name = "Grace"
          $0.accentID = 2
        }
      }
      let change = try #require(await harness.next())
      await harness.loseAnswer(to: change)
      #expect(harness.fake.renameUserRemotely(harness.me.id, to: "Hopper"))
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.accentID = 5 } }

      // when
      let sent = await harness.answerAll(at: .seconds(60))

      // then
      #expect(sent.map(\.endpoint) == [change.endpoint, .updateSelf(SelfUpdate(accentID: 5))])
      #expect(sent.first?.idempotencyKey == change.idempotencyKey)
      #expect(harness.fake.user(harness.me.id)?.name == "Hopper")
      #expect(harness.fake.user(harness.me.id)?.accentID == 5)
    }

    @Test(
      "A rename whose answer was lost keeps its idempotency key when a resend fails before the backend acts on it",
      arguments: [
        BackendFailure(responseClass: .temporary, transportError: .network(.offline)),
        BackendFailure(responseClass: .temporary, status: 429),
        BackendFailure.notSent,
      ])
    func lostRenameKeepsItsKeyAcrossUnsentResend(failure: BackendFailure) async throws {
      // given: the backend applied "Mine" but its answer was lost; the resend did not reach it
      let harness = TrackerHarness()
      let (id, _) = try await seedGroupWithAnn(in: harness)
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }
      let rename = try #require(await harness.next())
      await harness.loseAnswer(to: rename)
      let unsent = try #require(await harness.next(at: .seconds(60)))
      await harness.complete(unsent, .temporary(failure), at: .seconds(60))

      // when
      let sent = await harness.answerAll(at: .seconds(600))

      // then
      #expect(sent.map(\.idempotencyKey) == [rename.idempotencyKey])
      #expect(try await renameNotifications(of: id, in: harness) == ["Mine"])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member the user adds again after the news of another member's later removal stays, and is sent as a new change"
    )
    func memberAddedAgainAfterOvertakingRemoval() async throws {
      // given: the user adds Bob; the backend adds him, Ann removes him, and this device pulls
      // both news; then the user removes Bob and adds him again, before the first answer comes
      let harness = TrackerHarness()
      let (id, ann, bob, addition, answer) = try await bobAddedThenRemovedByAnn(in: harness)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(bob) }
      }
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }

      // when
      await settle(addition, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, bob]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.fake.journal.filter { $0.route == .addMembers }.count == 2)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member removal the backend applied before another member added that member back yields to them, and a member added in the same save still goes"
    )
    func memberRemovalOvertakenKeepsAdditionOfTheSameSave() async throws {
      // given: a group of the self user, Ann and Bob; the user removes Bob and adds Cat in one
      // save; the removal goes first, the backend applies it, then Ann adds Bob back, and this
      // device pulls both news before the removal's answer arrives
      let harness = TrackerHarness()
      let (id, members) = try await seedGroup(with: ["Ann", "Bob"], in: harness)
      let (ann, bob) = (members[0], members[1])
      let cat = harness.fake.insertUser(name: "Cat")
      try await harness.seedRemote([User(id: cat, name: "Cat")])
      try harness.save {
        try $0.update(Conversation.self, id: id) {
          $0.participantIDs.remove(bob)
          $0.participantIDs.insert(cat)
        }
      }
      let removal = try #require(await harness.next())
      let answer = await harness.respond(to: removal)
      harness.fake.addMembersRemotely([bob], to: id, by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(removal, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, bob, cat]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.fake.journal.filter { $0.route == .removeMembers }.count == 1)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member addition answered after news dropped the group and brought it back leaves the members as the later news say"
    )
    func memberAdditionAnsweredAfterGroupCameBack() async throws {
      // given: the user adds Bob and the backend applies it; then Ann removes the self user,
      // adds them back and removes Bob; the client pulls all of it before the addition's answer
      let harness = TrackerHarness()
      let (id, ann, bob, addition, answer) = try await bobAddedAndApplied(in: harness)
      harness.fake.removeMembersRemotely([harness.me.id], from: id, by: ann)
      harness.fake.addMembersRemotely([harness.me.id], to: id, by: ann)
      harness.fake.removeMembersRemotely([bob], from: id, by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(addition, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.fake.journal.filter { $0.route == .addMembers }.count == 1)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    /// When this device hears the news of its own removal, which the backend applied before its
    /// answer came.
    enum RemovalNewsHeard: Sendable, CaseIterable {
      /// After the answer.
      case afterAnswer
      /// Before the user adds the member back.
      case beforeAddingBack
      /// After the user adds the member back, before they remove them again.
      case beforeRemovingAgain
    }

    @Test(
      "A member the user removed again while the removal was out goes again, even answered before the news of another member adding them back",
      arguments: RemovalNewsHeard.allCases)
    func memberRemovedAgainGoesAgain(removalNews: RemovalNewsHeard) async throws {
      // given: a group of the self user, Ann and Bob; the user removes Bob and the backend
      // applies it; meanwhile the user adds Bob and removes him again, Ann adds Bob back just
      // before that, and the removal's answer arrives before the news of Ann's addition
      let harness = TrackerHarness()
      let (id, members) = try await seedGroup(with: ["Ann", "Bob"], in: harness)
      let (ann, bob) = (members[0], members[1])
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(bob) }
      }
      let removal = try #require(await harness.next())
      let answer = await harness.respond(to: removal)
      if removalNews == .beforeAddingBack { try await pullNotifications(into: harness) }
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }
      if removalNews == .beforeRemovingAgain { try await pullNotifications(into: harness) }
      harness.fake.addMembersRemotely([bob], to: id, by: ann)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.remove(bob) }
      }

      // when
      await settle(removal, with: answer, thenAllAt: .seconds(60), in: harness)
      try await pullNotifications(into: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.fake.journal.filter { $0.route == .removeMembers }.count == 2)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member another member adds and then removes while the user's member change is out ends out, and only the user's change is sent"
    )
    func memberAddedAndRemovedElsewhereWhileChangeIsOut() async throws {
      // given: the user adds Bob; while the addition is out, Ann adds Cat, and then removes her,
      // and this device pulls each news on its own
      let harness = TrackerHarness()
      let (id, ann) = try await seedGroupWithAnn(in: harness)
      let bob = harness.fake.insertUser(name: "Bob")
      let cat = harness.fake.insertUser(name: "Cat")
      try await harness.seedRemote([User(id: bob, name: "Bob"), User(id: cat, name: "Cat")])
      var cursor = try await pullNews(after: nil, into: harness)
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }
      let addition = try #require(await harness.next())
      _ = harness.fake.addMembersRemotely([cat], to: id, by: ann)
      cursor = try await pullNews(after: cursor, into: harness)
      _ = harness.fake.removeMembersRemotely([cat], from: id, by: ann)
      _ = try await pullNews(after: cursor, into: harness)
      let answer = await harness.respond(to: addition)

      // when
      await settle(addition, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, bob]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
      #expect(harness.fake.journal.filter { $0.route == .addMembers }.count == 1)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A group renamed by another member after the backend created it, heard of before the answer, takes that name, even one of spaces",
      arguments: ["Theirs", "  "])
    func insertAnsweredAfterRemoteRename(name: String) async throws {
      // given
      let harness = TrackerHarness()
      let ann = try await knownUsers(["Ann"], in: harness)[0]
      let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
      // The news of the creation first, then those of the rename, on pages of their own.
      let cursor = try await pullNews(after: nil, into: harness)
      harness.fake.renameRemotely(group.id, to: name, by: ann)
      _ = try await pullNews(after: cursor, into: harness)

      // when
      await settle(post, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id)?.name == name)
      #expect(harness.fake.conversation(group.id)?.name == name)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member another member added or removed after the backend created the group, heard of before the answer, is added or removed here too",
      arguments: [true, false])
    func insertAnsweredAfterRemoteMemberChange(joined: Bool) async throws {
      // given: the backend created the group with Ann (and Bob, unless he joins later), then Ann
      // added or removed Bob, and the client heard of it before the answer to its creation came
      let harness = TrackerHarness()
      let users = try await knownUsers(["Ann", "Bob"], in: harness)
      let (ann, bob) = (users[0], users[1])
      let (group, post, answer) = try await createdGroup(
        with: joined ? [ann] : [ann, bob], in: harness)
      if joined {
        harness.fake.addMembersRemotely([bob], to: group.id, by: ann)
      } else {
        harness.fake.removeMembersRemotely([bob], from: group.id, by: ann)
      }
      try await pullNotifications(into: harness)

      // when
      await settle(post, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = joined ? [harness.me.id, ann, bob] : [harness.me.id, ann]
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: group.id)) == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A group another member removed the self user from, heard of before the answer to its creation, does not come back with that answer"
    )
    func insertAnsweredAfterSelfRemoved() async throws {
      // given: the backend created the group, then Ann removed the self user, and the client
      // heard of it (dropping the group here) before the answer to its creation came
      let harness = TrackerHarness()
      let ann = try await knownUsers(["Ann"], in: harness)[0]
      let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
      harness.fake.removeMembersRemotely([harness.me.id], from: group.id, by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(post, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id) == nil)
      #expect(harness.fake.members(of: group.id) == [ann])
      #expect(await harness.localChanges(Conversation.self).isEmpty)
      #expect(await harness.queue(at: .seconds(60)).isEmpty)
    }

    @Test(
      "A group another member removed the self user from, renamed and added them back to, heard of before the answer to its creation, keeps the news' name",
      arguments: [true, false])
    func insertAnsweredAfterSelfRemovedAndAddedBack(renameWhileRemoved: Bool) async throws {
      // given: the backend created the group, then Ann removed the self user, renamed the group
      // and added the self user back (or renamed it after), and the client heard of it all
      // (dropping the group here and bringing it back) before the answer to its creation came
      let harness = TrackerHarness()
      let ann = try await knownUsers(["Ann"], in: harness)[0]
      let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
      harness.fake.removeMembersRemotely([harness.me.id], from: group.id, by: ann)
      if renameWhileRemoved { harness.fake.renameRemotely(group.id, to: "Theirs", by: ann) }
      harness.fake.addMembersRemotely([harness.me.id], to: group.id, by: ann)
      if !renameWhileRemoved { harness.fake.renameRemotely(group.id, to: "Theirs", by: ann) }
      try await pullNotifications(into: harness)
      await expectSettled(harness.stack.tracker)
      let broughtBack = harness.ui.object(Conversation.self, id: group.id)?.name

      // when
      await settle(post, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      #expect(broughtBack == "Theirs")
      #expect(harness.ui.object(Conversation.self, id: group.id)?.name == "Theirs")
      #expect(harness.fake.conversation(group.id)?.name == "Theirs")
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member change the backend applied before another member removed the self user leaves nothing the backend may hold once answered"
    )
    func updateAnsweredAfterSelfRemoved() async throws {
      // given: the self user adds Bob; the backend applies it, Ann then removes the self user,
      // and the client hears of it before the answer comes
      let harness = TrackerHarness()
      let (group, _, _, addition, added) = try await additionOutWhenSelfRemoved(in: harness)

      // when
      await harness.complete(addition, added)
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(Conversation.self, id: group) == nil)
      #expect(await harness.localChanges(Conversation.self).unconfirmed[group] == nil)
      #expect(await harness.queue().isEmpty)
    }

    @Test(
      "A member change out while another member removed the self user and added them back leaves nothing the backend may hold once answered"
    )
    func updateAnsweredAfterSelfRemovedAndAddedBack() async throws {
      // given: the self user adds Bob; the backend applies it, then Ann removes the self user
      // and adds them back, and the client hears of both (dropping the group here and bringing
      // it back, with nothing pending) before the answer comes (model seed 181454)
      let harness = TrackerHarness()
      let (group, ann, bob, addition, added) = try await additionOutWhenSelfRemoved(in: harness)
      harness.fake.addMembersRemotely([harness.me.id], to: group, by: ann)
      try await pullNotifications(into: harness)

      // when
      await harness.complete(addition, added)
      await expectSettled(harness.stack.tracker)

      // then
      #expect(
        harness.ui.object(Conversation.self, id: group)?.participantIDs
          == [ann, bob, harness.me.id])
      #expect(await harness.localChanges(Conversation.self).unconfirmed[group] == nil)
      #expect(await harness.queue().isEmpty)
    }

    @Test(
      "A rename whose news were read after another member removed the self user and added them back lets a later rename by others apply"
    )
    func renameNewsReadAfterSelfRemovedAndAddedBack() async throws {
      // given: a rename is out when Ann removes the self user and adds them back; the client
      // hears of both (dropping the group here and bringing it back, with nothing pending),
      // then the backend applies the rename and the client reads its news before the answer
      // comes (model seed 326880)
      let harness = TrackerHarness()
      let ann = try await knownUsers(["Ann"], in: harness)[0]
      let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
      await harness.complete(post, answer)
      try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Ours" } }
      var cursor = try await pullNews(after: nil, into: harness)
      let rename = try #require(await harness.next())
      harness.fake.removeMembersRemotely([harness.me.id], from: group.id, by: ann)
      cursor = try await pullNews(after: cursor, into: harness)
      harness.fake.addMembersRemotely([harness.me.id], to: group.id, by: ann)
      cursor = try await pullNews(after: cursor, into: harness)
      let renamed = await harness.respond(to: rename)
      cursor = try await pullNews(after: cursor, into: harness)
      await harness.complete(rename, renamed)
      harness.fake.renameRemotely(group.id, to: "Theirs", by: ann)

      // when
      _ = try await pullNews(after: cursor, into: harness)
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id)?.name == "Theirs")
      #expect(harness.fake.conversation(group.id)?.name == "Theirs")
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A leave whose news were read with the self user's addition back, before its answer, lets a later addition bring the group back"
    )
    func leaveAnsweredAfterAddedBack() async throws {
      // given: the user leaves the group; the backend applies it and Ann adds the self user
      // back, and the client reads both news (the group back here) before the leave's answer
      // (model seed 26663 of 1,000 steps)
      let harness = TrackerHarness()
      let ann = try await knownUsers(["Ann"], in: harness)[0]
      let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
      await harness.complete(post, answer)
      var cursor = try await pullNews(after: nil, into: harness)
      try harness.save { try $0.delete(Conversation.self, id: group.id) }
      let leave = try #require(await harness.next())
      let left = await harness.respond(to: leave)
      harness.fake.addMembersRemotely([harness.me.id], to: group.id, by: ann)
      cursor = try await pullNews(after: cursor, into: harness)
      await harness.complete(leave, left)
      harness.fake.removeMembersRemotely([harness.me.id], from: group.id, by: ann)
      cursor = try await pullNews(after: cursor, into: harness)
      harness.fake.addMembersRemotely([harness.me.id], to: group.id, by: ann)

      // when
      _ = try await pullNews(after: cursor, into: harness)
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.ui.object(Conversation.self, id: group.id) != nil)
      #expect(harness.fake.members(of: group.id).contains(harness.me.id))
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A Retry-After answered for a group news dropped still holds the group back once the self user is added again"
    )
    func retryAfterForDroppedGroup() async throws {
      // given: a rename is out when Ann removes the self user; the client hears of it, the
      // rename is answered 429, and Ann adds the self user back
      let harness = TrackerHarness()
      let ann = try await knownUsers(["Ann"], in: harness)[0]
      let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
      await harness.complete(post, answer)
      try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Ours" } }
      let rename = try #require(await harness.next())
      harness.fake.removeMembersRemotely([harness.me.id], from: group.id, by: ann)
      try await pullNotifications(into: harness)
      await harness.complete(
        rename,
        .temporary(
          BackendFailure(responseClass: .temporary, status: 429, retryAfter: .seconds(5))))
      harness.fake.addMembersRemotely([harness.me.id], to: group.id, by: ann)
      try await pullNotifications(into: harness)
      await expectSettled(harness.stack.tracker)
      try harness.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Again" } }

      // when
      let early = await harness.next(at: .seconds(2))
      let late = await harness.next(at: .seconds(6))

      // then
      #expect(early == nil)
      #expect(
        late?.endpoint == .renameConversation(id: group.id, ConversationRename(name: "Again")))
    }

    @Test(
      "A member another member removed after the backend applied a second try of a group's creation, heard of before its answer, is removed here too"
    )
    func memberRemovedAfterRetriedInsert() async throws {
      // given: the first creation went with Ann and was answered 503, the user added Bob, the
      // second went with both and the backend applied it; then Ann removed Bob, and the client
      // heard of it before the answer to the second creation came
      let harness = TrackerHarness()
      let users = try await knownUsers(["Ann", "Bob"], in: harness)
      let (ann, bob) = (users[0], users[1])
      let (group, second, answer) = try await retriedGroup(with: ann, adding: bob, in: harness)
      harness.fake.removeMembersRemotely([bob], from: group.id, by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(second, with: answer, thenAllAt: .seconds(120), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann]
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: group.id)) == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member the user takes out of a new group after its kept creation went stays out, though news tell of another member adding them"
    )
    func memberRemovedAfterKeptCreationWent() async throws {
      // given: the first creation went with Ann and Bob and was answered 503; the user took Bob
      // out, and the backend applied the second creation, without him; the user then added Bob
      // again, Ann added him on the backend, and the user took him out, all before the answer
      let harness = TrackerHarness()
      let users = try await knownUsers(["Ann", "Bob"], in: harness)
      let (ann, bob) = (users[0], users[1])
      var group = harness.make.conversation(name: "Mine", creator: harness.me)
      group.participantIDs.formUnion([ann, bob])
      try harness.insert([group])
      let first = try #require(await harness.next())
      await harness.complete(
        first, .temporary(BackendFailure(responseClass: .temporary, status: 503)))
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.remove(bob) }
      }
      let second = try #require(await harness.next(at: .seconds(60)))
      let answer = await harness.respond(to: second)
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob) }
      }
      harness.fake.addMembersRemotely([bob], to: group.id, by: ann)
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.remove(bob) }
      }

      // when
      try await pullNotifications(into: harness)

      // then
      await expectSettled(harness.stack.tracker)
      let expected: Set<UUID> = [harness.me.id, ann]
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      await settle(second, with: answer, thenAllAt: .seconds(120), in: harness)
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: group.id)) == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member another member removed while the group's creation was unanswered, added back here before the answer, reaches the backend"
    )
    func memberAddedBackBeforeInsertAnswered() async throws {
      // given: the backend created the group with Ann and Bob, Ann removed Bob, the client
      // heard of it, and the user added Bob back, all before the answer to the creation came
      let harness = TrackerHarness()
      let users = try await knownUsers(["Ann", "Bob"], in: harness)
      let (ann, bob) = (users[0], users[1])
      let (group, post, answer) = try await createdGroup(with: [ann, bob], in: harness)
      harness.fake.removeMembersRemotely([bob], from: group.id, by: ann)
      try await pullNotifications(into: harness)
      await expectSettled(harness.stack.tracker)
      #expect(
        harness.ui.object(Conversation.self, id: group.id)?.participantIDs.contains(bob) == false)
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob) }
      }

      // when
      await settle(post, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, bob]
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: group.id)) == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member added here after a group's creation went is still sent when another member removes someone before the answer"
    )
    func memberAddedAfterInsertWentSurvivesRemoteRemoval() async throws {
      // given: the creation went with Ann and Bob, the user added Cat, then Ann removed Bob and
      // the client heard of it before the answer came
      let harness = TrackerHarness()
      let users = try await knownUsers(["Ann", "Bob", "Cat"], in: harness)
      let (ann, bob, cat) = (users[0], users[1], users[2])
      let (group, post, answer) = try await createdGroup(with: [ann, bob], in: harness)
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(cat) }
      }
      await expectSettled(harness.stack.tracker)
      harness.fake.removeMembersRemotely([bob], from: group.id, by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(post, with: answer, thenAllAt: .seconds(60), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, cat]
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: group.id)) == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "When two versions of a group's creation may have reached the backend, a member change heard of before the answer is applied to both"
    )
    func newsAfterEitherOfTwoCreations() async throws {
      // given: a first creation with Ann may have been applied (a 503); the second, with Ann and
      // Bob, was. The user removed Bob, and Ann left, before the second was answered.
      let harness = TrackerHarness()
      let users = try await knownUsers(["Ann", "Bob"], in: harness)
      let (ann, bob) = (users[0], users[1])
      let (group, second, answer) = try await retriedGroup(with: ann, adding: bob, in: harness)
      try harness.save {
        try $0.update(Conversation.self, id: group.id) { $0.participantIDs.remove(bob) }
      }
      await expectSettled(harness.stack.tracker)
      harness.fake.removeMembersRemotely([ann], from: group.id, by: ann)
      try await pullNotifications(into: harness)

      // when
      await settle(second, with: answer, thenAllAt: .seconds(120), in: harness)

      // then
      let expected: Set<UUID> = [harness.me.id]
      #expect(harness.ui.object(Conversation.self, id: group.id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: group.id)) == expected)
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }

    @Test(
      "A member whose addition here another member undid before the answer reaches the backend when the user adds them back"
    )
    func memberAddedBackAfterOwnAdditionWasUndone() async throws {
      // given: the backend added Bob for this device, then Ann removed him, and the client heard
      // of both before the answer to the addition came
      let harness = TrackerHarness()
      let (id, ann) = try await seedGroupWithAnn(in: harness)
      let bob = try await knownUsers(["Bob"], in: harness)[0]
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }
      let add = try #require(await harness.next())
      let answer = await harness.respond(to: add)
      harness.fake.removeMembersRemotely([bob], from: id, by: ann)
      try await pullNotifications(into: harness)
      await harness.complete(add, answer)
      await expectSettled(harness.stack.tracker)

      // when
      try harness.save {
        try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
      }
      await harness.answerAll(at: .seconds(60))
      await expectSettled(harness.stack.tracker)

      // then
      let expected: Set<UUID> = [harness.me.id, ann, bob]
      #expect(harness.ui.object(Conversation.self, id: id)?.participantIDs == expected)
      #expect(Set(harness.fake.members(of: id)) == expected)
    }

    @Test(
      "A message deletion answered after news dropped its group and brought back the group and the message removes the message here too (simulator seed 54236)"
    )
    func messageDeletionAnsweredAfterNewsBroughtItBack() async throws {
      // given: Ann removed the self user from the group and added them back, unheard here; the
      // user sends a message there and deletes it, and before the deletion is answered the news
      // drop the group with the deletion, then bring back the group and the message
      let harness = TrackerHarness()
      let (id, ann) = try await seedGroupWithAnn(in: harness)
      harness.fake.removeMembersRemotely([harness.me.id], from: id, by: ann)
      harness.fake.addMembersRemotely([harness.me.id], to: id, by: ann)
      let group = try #require(harness.ui.object(Conversation.self, id: id))
      let message = harness.make.message(in: group, from: harness.me)
      try harness.insert([message])
      let post = try #require(await harness.next())
      await harness.complete(post, await harness.respond(to: post))
      try harness.save { try $0.delete(Message.self, id: message.id) }
      let deletion = try #require(await harness.next())
      try await pullNotifications(into: harness)

      // when
      await harness.complete(deletion, await harness.respond(to: deletion))
      await expectSettled(harness.stack.tracker)

      // then
      #expect(harness.fake.messages(in: id).isEmpty)
      #expect(harness.ui.object(Message.self, id: message.id) == nil)
      #expect(await harness.queue().isEmpty)
    }

    @Test("A rename whose own notification was pulled before its answer is sent once")
    func ownNotificationIsNotNews() async throws {
      // given
      let harness = TrackerHarness()
      let (id, _) = try await seedGroupWithAnn(in: harness)
      try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }
      let rename = try #require(await harness.next())
      let answer = await harness.respond(to: rename)
      try await pullNotifications(into: harness)

      // when
      await harness.complete(rename, answer)
      let more = await harness.answerAll(at: .seconds(60))

      // then
      #expect(more.isEmpty)
      #expect(harness.fake.conversation(id)?.name == "Mine")
      #expect(await harness.localChanges(Conversation.self).isEmpty)
    }
  }
}

/// Users named `names`, on the backend and synchronised here, in the same order.
@MainActor
func knownUsers(_ names: [String], in harness: TrackerHarness) async throws -> [UUID] {
  let ids = names.map { harness.fake.insertUser(name: $0) }
  try await harness.seedRemote(zip(ids, names).map { User(id: $0, name: $1) })
  return ids
}

/// A new group "Mine" of the self user and `members`, made here; the tracker handed out its
/// creation and the backend applied it, but the answer has not reached the tracker yet.
@MainActor
private func createdGroup(with members: Set<UUID>, in harness: TrackerHarness) async throws
  -> (group: Conversation, post: UpstreamRequest, answer: UpstreamOutcome)
{
  var group = harness.make.conversation(name: "Mine", creator: harness.me)
  group.participantIDs.formUnion(members)
  try harness.insert([group])
  let post = try #require(await harness.next())
  return (group, post, await harness.respond(to: post))
}

/// A group the self user made with Ann, whose addition of Bob the backend applied and has not
/// answered yet, when Ann removes the self user and the client reads that news: the answer to
/// hand back (`added`) comes after the group is gone here.
@MainActor
private func additionOutWhenSelfRemoved(in harness: TrackerHarness) async throws
  -> (group: UUID, ann: UUID, bob: UUID, addition: UpstreamRequest, added: UpstreamOutcome)
{
  let users = try await knownUsers(["Ann", "Bob"], in: harness)
  let (ann, bob) = (users[0], users[1])
  let (group, post, answer) = try await createdGroup(with: [ann], in: harness)
  await harness.complete(post, answer)
  try harness.save {
    try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob) }
  }
  let addition = try #require(await harness.next())
  let added = await harness.respond(to: addition)
  harness.fake.removeMembersRemotely([harness.me.id], from: group.id, by: ann)
  try await pullNotifications(into: harness)
  return (group.id, ann, bob, addition, added)
}

/// A new group "Mine" of the self user and `member`, made here: its first creation was answered
/// 503 (so it may have reached the backend), the user then added `added`, and the backend applied
/// the second creation, with both, at 60 s, whose answer has not reached the tracker yet.
@MainActor
private func retriedGroup(with member: UUID, adding added: UUID, in harness: TrackerHarness)
  async throws -> (group: Conversation, second: UpstreamRequest, answer: UpstreamOutcome)
{
  var group = harness.make.conversation(name: "Mine", creator: harness.me)
  group.participantIDs.insert(member)
  try harness.insert([group])
  let first = try #require(await harness.next())
  await harness.complete(first, .temporary(BackendFailure(responseClass: .temporary, status: 503)))
  try harness.save {
    try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(added) }
  }
  let second = try #require(await harness.next(at: .seconds(60)))
  return (group, second, await harness.respond(to: second))
}

/// Gives `request` its `answer`, then answers every request that follows with success at
/// `time`, and waits until the tracker is idle.
@MainActor
private func settle(
  _ request: UpstreamRequest, with answer: UpstreamOutcome, thenAllAt time: Duration,
  in harness: TrackerHarness
) async {
  await harness.complete(request, answer)
  await harness.answerAll(at: time)
  await expectSettled(harness.stack.tracker)
}

/// The group of the self user and Ann, to which the user added Bob: the backend applied the
/// addition, whose answer has not reached the tracker, then Ann removed Bob, and the sync
/// context pulled both news.
@MainActor
private func bobAddedThenRemovedByAnn(in harness: TrackerHarness) async throws -> (
  group: UUID, ann: UUID, bob: UUID, addition: UpstreamRequest, answer: UpstreamOutcome
) {
  let (id, ann, bob, addition, answer) = try await bobAddedAndApplied(in: harness)
  harness.fake.removeMembersRemotely([bob], from: id, by: ann)
  try await pullNotifications(into: harness)
  return (id, ann, bob, addition, answer)
}

/// The group of the self user and Ann, which the user renamed "Mine": the backend applied the
/// rename, whose answer has not reached the tracker.
@MainActor
private func mineApplied(in harness: TrackerHarness) async throws -> (
  group: UUID, ann: UUID, rename: UpstreamRequest, answer: UpstreamOutcome
) {
  let (id, ann) = try await seedGroupWithAnn(in: harness)
  try harness.save { try $0.update(Conversation.self, id: id) { $0.name = "Mine" } }
  let rename = try #require(await harness.next())
  return (id, ann, rename, await harness.respond(to: rename))
}

/// The group of the self user and Ann, to which the user added Bob: the backend applied the
/// addition, whose answer has not reached the tracker.
@MainActor
private func bobAddedAndApplied(in harness: TrackerHarness) async throws -> (
  group: UUID, ann: UUID, bob: UUID, addition: UpstreamRequest, answer: UpstreamOutcome
) {
  let (id, ann) = try await seedGroupWithAnn(in: harness)
  let bob = harness.fake.insertUser(name: "Bob")
  try await harness.seedRemote([User(id: bob, name: "Bob")])
  try harness.save {
    try $0.update(Conversation.self, id: id) { $0.participantIDs.insert(bob) }
  }
  let addition = try #require(await harness.next())
  let answer = await harness.respond(to: addition)
  return (id, ann, bob, addition, answer)
}

/// The names of the rename notifications the fake holds for group `id`, oldest first: one per
/// rename the server applied.
@MainActor
private func renameNotifications(of id: UUID, in harness: TrackerHarness) async throws -> [String] {
  guard
    case .success(.notifications(let page)) = harness.fake.answer(
      .getNotifications(since: nil, size: 500))
  else { return [] }
  return page.elements.flatMap(\.events).compactMap { (event: EventPayload) -> String? in
    guard case .conversationRename(let rename) = event, rename.conversation == id else {
      return nil
    }
    return rename.data
  }
}

/// A user named `name` who asked the self user to connect and was accepted, on the backend and
/// synchronised here.
@MainActor
private func connectedUser(
  _ name: String, status: ConnectionStatus = .accepted, in harness: TrackerHarness
) async throws -> UUID {
  let user = harness.fake.insertUser(name: name)
  let conversation = try #require(harness.fake.connectRemotely(with: user))
  if status != .accepted {
    _ = harness.fake.answer(.updateConnection(user: user, ConnectionUpdate(status: status)))
  }
  try await harness.seedRemote([
    User(id: user, name: name),
    Connection(
      from: harness.me.id, to: user, status: .init(status), conversationID: conversation,
      lastUpdate: harness.make.now),
  ])
  return user
}

extension Connection.Status {
  /// The model's status for the backend's.
  init(_ status: ConnectionStatus) { self.init(backendValue: status.rawValue) }
}

/// One field of the self user that two devices edit: its value here and on the other device.
struct SelfFieldEdit: Sendable, CustomTestStringConvertible {
  let field: String
  let here: String
  let otherDevice: String

  /// The name and the accent (as text, so one table holds both).
  static let all = [
    SelfFieldEdit(field: "name", here: "Grace", otherDevice: "Hopper"),
    SelfFieldEdit(field: "accent", here: "3", otherDevice: "5"),
  ]

  var testDescription: String { "\(field): \(here) here, \(otherDevice) on the other device" }

  func apply(_ value: String, _ user: inout User) {
    if field == "name" { user.name = value } else { user.accentID = Int(value) ?? 0 }
  }

  func read(_ user: User) -> String { field == "name" ? user.name : String(user.accentID) }

  func read(_ user: UserPayload) -> String {
    field == "name" ? user.name : String(user.accentID)
  }

  func update(_ value: String) -> SelfUpdate {
    var update = SelfUpdate()
    if field == "name" { update.name = value } else { update.accentID = Int(value) ?? 0 }
    return update
  }
}

/// A user named `name` who asked the self user to connect, known to the backend and here as a
/// pending connection.
@MainActor
func seedRequest(from name: String, in harness: TrackerHarness) async throws -> UUID {
  let user = harness.fake.insertUser(name: name)
  let conversation = try #require(harness.fake.requestConnectionRemotely(from: user))
  try await harness.seedRemote([
    User(id: user, name: name),
    Connection(
      from: harness.me.id, to: user, status: .pending, conversationID: conversation,
      lastUpdate: harness.make.now),
  ])
  return user
}

/// A group named "G" of the self user and Ann, on the backend and synchronised here.
@MainActor
func seedGroupWithAnn(in harness: TrackerHarness) async throws -> (group: UUID, ann: UUID) {
  let (id, members) = try await seedGroup(with: ["Ann"], in: harness)
  return (id, members[0])
}

/// Makes a group of the self user and users of `names`, held alike by the fake backend and both
/// contexts; returns its id and the members' ids, in the order of `names`.
@MainActor
func seedGroup(with names: [String], in harness: TrackerHarness) async throws
  -> (group: UUID, members: [UUID])
{
  let members = names.map { harness.fake.insertUser(name: $0) }
  let id = harness.fake.createGroupRemotely(name: "G", by: harness.me.id, members: members)
  let users: [any ModelObject] = zip(members, names).map { User(id: $0, name: $1) }
  try await harness.seedRemote(
    users + [
      Conversation(
        id: id, kind: .group, name: "G", creatorID: harness.me.id,
        participantIDs: Set(members + [harness.me.id]), lastEventTime: harness.make.now)
    ])
  return (id, members)
}

/// Applies the notifications after `cursor` to the harness's sync context, and returns the new
/// cursor, as a client that pulls again and again does.
@MainActor
func pullNews(after cursor: UUID?, into harness: TrackerHarness) async throws -> UUID? {
  guard
    case .success(.notifications(let page)) = harness.fake.answer(
      .getNotifications(since: cursor, size: 500))
  else {
    Issue.record("The fake did not answer with notifications")
    return cursor
  }
  return try await harness.stack.sync.perform { context in
    let applied = DownstreamSync().apply(page, since: cursor, in: context)
    try context.save()
    return applied.lastID
  }
}

/// Applies every notification the fake has for the self user to the sync context, and saves.
@MainActor
func pullNotifications(into harness: TrackerHarness) async throws {
  guard
    case .success(.notifications(let page)) = harness.fake.answer(
      .getNotifications(since: nil, size: 500))
  else {
    Issue.record("The fake did not answer with notifications")
    return
  }
  try await harness.stack.sync.perform { context in
    _ = DownstreamSync().apply(page, since: nil, in: context)
    try context.save()
  }
}
