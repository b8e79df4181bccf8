import CourierAPI
import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

extension SyncEngineTests {
  /// Two devices edit the same key, and the answer to this device's edit comes after the news.
  ///
  /// The server's versions say which edit it applied last: that one stands, and nothing is sent
  /// twice.
  @Suite("Edits of one key by two devices, in the server's order")
  @MainActor
  struct ServerOrder {
    @Test(
      "A rename answered after the news of a later rename on another device takes that name and is sent once"
    )
    func selfRenameOvertakenByOtherDevice() async throws {
      // given: Ada renames herself to Grace; the server applies it but its answer is held;
      // her other device renames her to Hopper, and this device pulls both news
      let world = try await SyncWorld.start()
      world.fake.addFault(.once(RequestMatcher("PUT", "/self"), .holdAnswer))
      try world.save { try $0.update(User.self, id: world.me) { $0.name = "Grace" } }
      await world.fake.waitForParkedRequests(1)
      world.fake.renameUserRemotely(world.me, to: "Hopper")
      await world.engine.pullNotifications()

      // when: the answer to Grace arrives
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then
      #expect(world.ui.selfUser?.name == "Hopper")
      #expect(world.fake.user(world.me)?.name == "Hopper")
      #expect(world.fake.journal.filter { $0.route == .updateSelf }.count == 1)
      #expect(await world.engine.queue().isEmpty)
    }

    @Test(
      "A member addition answered after the news of another member's removal of them leaves them out and is sent once"
    )
    func memberAdditionOvertakenByRemoval() async throws {
      // given: the user adds Bob to Lunch; the server adds him but the answer is held; Ann
      // removes him, and this device pulls both news
      let (world, ann, bob, _, lunch) = try await Self.lunchWithAnn()
      try await Self.addBobOvertakenByAnn(world, ann: ann, bob: bob, lunch: lunch)

      // when
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then
      let expected: Set<UUID> = [world.me, ann]
      #expect(world.ui.object(Conversation.self, id: lunch.id)?.participantIDs == expected)
      #expect(Set(world.fake.members(of: lunch.id)) == expected)
      #expect(world.fake.journal.filter { $0.route == .addMembers }.count == 1)
    }

    /// A world whose self user has the contacts Ann, Bob and Cy, and a group Lunch with Ann.
    static func lunchWithAnn() async throws -> (
      world: SyncWorld, ann: UUID, bob: UUID, cy: UUID, lunch: Conversation
    ) {
      var ids: [UUID] = []
      let world = try await SyncWorld.start { fake, _ in
        ids = ["Ann", "Bob", "Cy"].map { fake.insertUser(name: $0) }
        for user in ids { fake.connectRemotely(with: user) }
      }
      try #require(ids.count == 3)
      let lunch = try await world.group(named: "Lunch", members: [ids[0]])
      return (world, ids[0], ids[1], ids[2], lunch)
    }

    /// The user adds Bob to Lunch and the server adds him, but the answer is held; Ann removes
    /// him, and this device pulls both news.
    static func addBobOvertakenByAnn(
      _ world: SyncWorld, ann: UUID, bob: UUID, lunch: Conversation
    ) async throws {
      world.fake.addFault(.once(RequestMatcher("POST", "/conversations/*/members"), .holdAnswer))
      try world.save {
        try $0.update(Conversation.self, id: lunch.id) { $0.participantIDs.insert(bob) }
      }
      await world.fake.waitForParkedRequests(1)
      world.fake.removeMembersRemotely([bob], from: lunch.id, by: ann)
      await world.engine.pullNotifications()
    }

    /// The idempotency keys of the member additions that carried `user`, in the order they came.
    static func additionKeys(of user: UUID, _ fake: FakeBackend) -> [String?] {
      fake.requests(.addMembers).filter { entry in
        guard case .success(.addMembers(_, let list)) = entry.request.endpoint else { return false }
        return list.users.contains(user)
      }.map { $0.request.headers["idempotency-key"] }
    }

    @Test(
      "A member addition whose answer was lost, overtaken by another member's removal, stays out though the user changed other members since"
    )
    func lostMemberAdditionOvertakenWhileOthersChanged() async throws {
      // given: the user adds Bob to Lunch; the server adds him, the answer is lost, and the
      // attempt sent again under its key is held; Ann removes Bob, the user adds Cy, and this
      // device pulls the news
      let (world, ann, bob, cy, lunch) = try await Self.lunchWithAnn()
      let additions = RequestMatcher("POST", "/conversations/*/members")
      world.fake.addFault(.once(additions, .loseResponse))
      world.fake.addFault(.once(additions, .holdAnswer))
      try world.save {
        try $0.update(Conversation.self, id: lunch.id) { $0.participantIDs.insert(bob) }
      }
      await world.settle(allowing: .stuckWork)
      await world.fake.waitForParkedRequests(1)
      world.fake.removeMembersRemotely([bob], from: lunch.id, by: ann)
      try world.save {
        try $0.update(Conversation.self, id: lunch.id) { $0.participantIDs.insert(cy) }
      }
      await world.engine.pullNotifications()

      // when: the held attempt is answered as the first one was
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then: Ann's later removal stands, Cy is added, and Bob's addition went under one key
      let expected: Set<UUID> = [world.me, ann, cy]
      #expect(world.ui.object(Conversation.self, id: lunch.id)?.participantIDs == expected)
      #expect(Set(world.fake.members(of: lunch.id)) == expected)
      let keys = Self.additionKeys(of: bob, world.fake)
      #expect(Set(keys).count == 1, "\(keys)")
    }

    @Test(
      "A member addition answered after another member removed them, who is then added back, is not sent again with the user's next change"
    )
    func memberAdditionOvertakenThenAddedBack() async throws {
      // given: a rename of Lunch the server refuses keeps the group pending here; the user adds
      // Bob, the answer is held, Ann removes him, and the answer comes after this device pulled
      // that news; then Ann adds Bob back
      let (world, ann, bob, cy, lunch) = try await Self.lunchWithAnn()
      expectLoggedError(containing: "refused for good")
      world.fake.addFault(.times(2, RequestMatcher(.renameConversation), .status(400)))
      try world.save { try $0.update(Conversation.self, id: lunch.id) { $0.name = "Tea" } }
      await world.settle()
      try await Self.addBobOvertakenByAnn(world, ann: ann, bob: bob, lunch: lunch)
      world.fake.releaseAllParkedRequests()
      await world.settle()
      world.fake.addMembersRemotely([bob], to: lunch.id, by: ann)
      await world.engine.pullNotifications()
      await world.settle()

      // when
      try world.save {
        try $0.update(Conversation.self, id: lunch.id) { $0.participantIDs.insert(cy) }
      }
      await world.settle()

      // then: the next request adds Cy alone
      let expected: Set<UUID> = [world.me, ann, bob, cy]
      #expect(world.ui.object(Conversation.self, id: lunch.id)?.participantIDs == expected)
      #expect(Set(world.fake.members(of: lunch.id)) == expected)
      #expect(Self.additionKeys(of: bob, world.fake).count == 1)
    }
  }
}
