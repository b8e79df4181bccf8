import ConnectionParsing
import ConversationParsing
import CourierAPI
import Foundation
import Models
import ParsingCore
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension DownstreamSyncTests.OwnNews {
  /// Lists of a catch-up are read at a version, as news are: below an answer's version they
  /// leave what the answer set, at it or later they apply.
  @Suite("Lists read around the user's own answered changes")
  @MainActor
  struct Lists {
    typealias OwnNews = DownstreamSyncTests.OwnNews

    /// The versions the lists are read at in these tests: before the answer, and after it.
    nonisolated static let readings = [OwnNews.answered - 1, OwnNews.answered + 1]

    /// Lunch as the backend lists it, named `name`, with the self user and `others`.
    nonisolated static func lunch(named name: String = "Lunch", others: [UUID], me: UUID)
      -> ConversationPayload
    {
      ConversationPayload(
        id: OwnNews.group, type: .group, name: name, creator: me, selfMember: me,
        otherMembers: others, lastEventTime: OwnNews.time)
    }

    /// Applies complete lists holding `conversations` and `connections`, read at `version`.
    static func read(
      _ conversations: [ConversationPayload], connections: [ConnectionPayload] = [],
      at version: Int, into harness: TrackerHarness
    ) async throws {
      try await harness.stack.sync.perform { context in
        _ = DownstreamSync().applyHeldState(
          connections: connections, conversations: conversations, complete: true,
          readAt: ServerVersion(version), in: context)
        try context.save()
      }
    }

    /// Lunch as the sync context holds it.
    static func lunch(in harness: TrackerHarness) async -> Conversation? {
      await harness.stack.sync.perform { $0.object(Conversation.self, id: OwnNews.group) }
    }

    @Test("Lists read before a group rename's answer keep the answered name", arguments: readings)
    func renameAgainstLists(readAt version: Int) async throws {
      // given: Lunch renamed to Brunch here, answered
      let harness = try await OwnNews.brunchAnswered()

      // when: the lists say Lunch
      try await Self.read(
        [Self.lunch(others: [OwnNews.ann], me: harness.me.id)], at: version, into: harness)

      // then
      let expected = version < OwnNews.answered ? "Brunch" : "Lunch"
      #expect(await Self.lunch(in: harness)?.name == expected)
      #expect(await harness.next() == nil)
    }

    @Test(
      "Lists read before a member addition's answer keep the member the answer added",
      arguments: readings)
    func additionAgainstLists(readAt version: Int) async throws {
      // given: Bob added to Lunch here, answered
      let harness = try await OwnNews.lunch()
      try await OwnNews.addBob(in: harness)

      // when: the lists leave Bob out
      try await Self.read(
        [Self.lunch(others: [OwnNews.ann], me: harness.me.id)], at: version, into: harness)

      // then
      let bobIn = version < OwnNews.answered
      #expect(await Self.lunch(in: harness)?.participantIDs.contains(OwnNews.bob) == bobIn)
      #expect(await harness.next() == nil)
    }

    @Test("Lists read before a leave's answer do not bring the group back", arguments: readings)
    func leaveAgainstLists(readAt version: Int) async throws {
      // given: the user left Lunch, answered
      let harness = try await OwnNews.leftLunch()

      // when: the lists still hold Lunch with the self user in it
      try await Self.read(
        [Self.lunch(others: [OwnNews.ann], me: harness.me.id)], at: version, into: harness)

      // then
      let back = version >= OwnNews.answered
      #expect((await Self.lunch(in: harness) != nil) == back)
      #expect(await harness.next() == nil)
    }

    @Test(
      "Lists read before a connection's answered status keep the status the answer set",
      arguments: readings)
    func statusAgainstLists(readAt version: Int) async throws {
      // given: Ann blocked here, answered
      let harness = try await OwnNews.blockedAnn()
      let accepted = ConnectionPayload(
        from: harness.me.id, to: OwnNews.ann, status: .accepted, conversation: OwnNews.group,
        lastUpdate: OwnNews.time)

      // when: the lists say accepted
      try await Self.read([], connections: [accepted], at: version, into: harness)

      // then
      let status = await harness.stack.sync.perform {
        $0.object(Connection.self, id: OwnNews.ann)?.status
      }
      #expect(status == (version < OwnNews.answered ? .blocked : .accepted))
      #expect(await harness.next() == nil)
    }

    @Test(
      "Complete lists read before a rename's answer keep the group they leave out, with the rename pending since",
      arguments: readings)
    func renamedGroupLeftOut(readAt version: Int) async throws {
      // given: Lunch renamed to Brunch here, answered, and renamed again since, unsent
      let harness = try await OwnNews.brunchAnswered()
      try harness.save {
        try $0.update(Conversation.self, id: OwnNews.group) { $0.name = "Supper" }
      }

      // when: the lists hold no group
      try await Self.read([], at: version, into: harness)

      // then: a rename answered after the lists were read shows the user back in the group by
      // then, and the news of the return follow
      let kept = version < OwnNews.answered
      #expect(await Self.lunch(in: harness)?.name == (kept ? "Supper" : nil))
      #expect(
        await harness.localChanges(Conversation.self).updatedKeys[OwnNews.group]
          == (kept ? [.name] : nil))
    }

    @Test(
      "Complete lists read before a group's creation was answered keep the group they leave out",
      arguments: readings)
    func creationAgainstLists(readAt version: Int) async throws {
      // given: a group created here, answered at the fake's version
      let harness = TrackerHarness()
      let ann = harness.fake.insertUser(name: "Ann")
      let supper = Conversation(
        id: UUID(130), kind: .group, name: "Supper", creatorID: harness.me.id,
        participantIDs: [harness.me.id, ann], lastEventTime: OwnNews.time)
      try harness.insert([supper])
      let creation = try #require(await harness.next())
      await harness.complete(creation, await harness.respond(to: creation))
      let answered = harness.fake.version.rawValue
      let readAt = version < OwnNews.answered ? answered - 1 : answered + 1

      // when: the lists hold no group
      try await Self.read([], at: readAt, into: harness)

      // then
      let kept = await harness.stack.sync.perform {
        $0.object(Conversation.self, id: supper.id) != nil
      }
      #expect(kept == (readAt < answered))
    }
  }
}
