import ConversationParsing
import FakeBackend
import Foundation
import Models
import ParsingCore
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests {
  /// The news of a change the user made come after its answer, sometimes pages later: by then
  /// the client holds what the answer said, and news older than it must not move the object
  /// back.
  @Suite("News of the user's own changes read after their answers")
  @MainActor
  struct OwnNews {
    /// A world reading one notification a page, with Ann and Bob connected and in Lunch, a
    /// group Ann made with the self user.
    static func start() async throws -> (world: SyncWorld, bob: UUID, lunch: UUID) {
      var ids: (bob: UUID, lunch: UUID)?
      let world = try await SyncWorld.start(downstream: DownstreamSync(pageSize: 1)) {
        fake, me in
        let ann = fake.insertUser(name: "Ann")
        let bob = fake.insertUser(name: "Bob")
        fake.connectRemotely(with: ann)
        fake.connectRemotely(with: bob)
        ids = (bob, fake.createGroupRemotely(name: "Lunch", by: ann, members: [me, bob]))
      }
      let (bob, lunch) = try #require(ids)
      return (world, bob, lunch)
    }

    /// Reads what `read` finds in the sync context while the pull's second page is held on its
    /// way to the backend, then lets the pull end and reads the UI context.
    static func betweenPages<Value: Sendable>(
      in world: SyncWorld, _ read: @escaping @Sendable (ModelContext) -> Value
    ) async -> (between: Value, after: Value) {
      world.fake.addFault(FaultRule(RequestMatcher("GET", "/notifications"), steps: [nil, .park]))
      let pull = Task { await world.engine.pullNotifications() }
      await world.fake.waitForParkedRequests(1)
      let between = await world.stack.sync.perform { read($0) }
      world.fake.releaseAllParkedRequests()
      await pull.value
      await world.settle()
      return (between, read(world.ui))
    }

    /// Lunch's members between the pull's pages, and after it.
    static func membersBetweenPages(of lunch: UUID, in world: SyncWorld) async -> (
      between: Set<UUID>?, after: Set<UUID>?
    ) {
      await betweenPages(in: world) { $0.object(Conversation.self, id: lunch)?.participantIDs }
    }

    @Test(
      "A member the user took out and added back, both answered, stays in while a pull reads the news of the removal"
    )
    func memberAddedBackStaysWhileRemovalIsRead() async throws {
      // given
      let (world, bob, lunch) = try await Self.start()
      try world.save {
        try $0.update(Conversation.self, id: lunch) { $0.participantIDs.remove(bob) }
      }
      await world.settle()
      try world.save {
        try $0.update(Conversation.self, id: lunch) { $0.participantIDs.insert(bob) }
      }
      await world.settle()

      // when
      let members = await Self.membersBetweenPages(of: lunch, in: world)

      // then
      #expect(members.between?.contains(bob) == true)
      #expect(members.after?.contains(bob) == true)
      #expect(world.fake.members(of: lunch).contains(bob))
    }

    @Test(
      "An answered member change whose news a pull read to the end did not find waits no more"
    )
    func unmatchedRecordForgottenAtTheEnd() async throws {
      // given: the sync context awaits news of Bob's addition to Lunch that will never come (as
      // when they could not be read); a pull reads to the end, then Ann removes Bob
      let (world, bob, lunch) = try await Self.start()
      let answered = world.fake.version.rawValue
      try await world.stack.sync.perform { context in
        context.syncMetadata.awaitNews(of: .member(bob, conversation: lunch), answeredAt: answered)
        try context.save()
      }
      await world.engine.pullNotifications()
      let ann = try #require(world.fake.members(of: lunch).first { $0 != world.me && $0 != bob })
      world.fake.removeMembersRemotely([bob], from: lunch, by: ann)

      // when
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(world.ui.object(Conversation.self, id: lunch)?.participantIDs.contains(bob) == false)
      let awaited = await world.stack.sync.perform { $0.syncMetadata.awaitedNews }
      #expect(awaited.isEmpty)
    }

    @Test(
      "A name the user gave twice, both answered, stays the last while a pull reads the news of the first",
      arguments: [true, false])
    func lastNameStaysWhileFirstIsRead(selfUser: Bool) async throws {
      // given: the self user, or Lunch, renamed to First and then to Second, each answered
      let (world, _, lunch) = try await Self.start()
      func rename(to name: String) throws {
        try world.save { context in
          if selfUser {
            try context.update(User.self, id: world.me) { $0.name = name }
          } else {
            try context.update(Conversation.self, id: lunch) { $0.name = name }
          }
        }
      }
      try rename(to: "First")
      await world.settle()
      try rename(to: "Second")
      await world.settle()

      // when
      let me = world.me
      let name = await Self.betweenPages(in: world) {
        selfUser
          ? $0.object(User.self, id: me)?.name
          : $0.object(Conversation.self, id: lunch)?.name
      }

      // then
      #expect(name.between == "Second")
      #expect(name.after == "Second")
    }

    @Test(
      "A rename answered after a catch-up that ran while it was out stays while a pull reads another member's older rename"
    )
    func renameAnsweredAcrossCatchUpStays() async throws {
      // given: Lunch renamed here to Mine, the request parked on its way; meanwhile the backend
      // forgets its news and the app catches up, then Ann renames Lunch to Theirs, and only then
      // does the backend apply the rename from here and answer it
      let (world, _, lunch) = try await Self.start()
      let ann = try #require(world.fake.conversation(lunch)?.creator)
      world.fake.addFault(.once(RequestMatcher(.renameConversation), .park))
      try world.save { try $0.update(Conversation.self, id: lunch) { $0.name = "Mine" } }
      await world.fake.waitForParkedRequests(1)
      world.fake.expireNotifications(keepingLast: 0)
      await world.engine.pullNotifications()
      world.fake.renameRemotely(lunch, to: "Theirs", by: ann)
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // when
      let name = await Self.betweenPages(in: world) {
        $0.object(Conversation.self, id: lunch)?.name
      }

      // then
      #expect(name.between == "Mine")
      #expect(name.after == "Mine")
      #expect(world.fake.conversation(lunch)?.name == "Mine")
    }

    @Test(
      "A group the user made and left, both answered, stays gone while a pull reads the news of its making"
    )
    func leftGroupStaysGoneWhileItsMakingIsRead() async throws {
      // given
      let (world, bob, _) = try await Self.start()
      let me = try #require(world.selfUser)
      var trip = world.make.conversation(name: "Trip", creator: me)
      trip.participantIDs.insert(bob)
      try world.save([trip])
      await world.settle()
      try world.save { try $0.delete(Conversation.self, id: trip.id) }
      await world.settle()

      // when
      let members = await Self.membersBetweenPages(of: trip.id, in: world)

      // then
      #expect(members.between == nil)
      #expect(members.after == nil)
      #expect(world.fake.members(of: trip.id) == [bob])
      let awaited = await world.stack.sync.perform { $0.syncMetadata.awaitedNews }
      #expect(awaited.isEmpty)
    }
  }
}
