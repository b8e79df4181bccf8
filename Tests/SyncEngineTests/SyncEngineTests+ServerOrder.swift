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
      var ids: (ann: UUID, bob: UUID)?
      let world = try await SyncWorld.start { fake, _ in
        let ann = fake.insertUser(name: "Ann")
        let bob = fake.insertUser(name: "Bob")
        fake.connectRemotely(with: ann)
        fake.connectRemotely(with: bob)
        ids = (ann, bob)
      }
      let (ann, bob) = try #require(ids)
      let lunch = try await world.group(named: "Lunch", members: [ann])
      world.fake.addFault(.once(RequestMatcher("POST", "/conversations/*/members"), .holdAnswer))
      try world.save {
        try $0.update(Conversation.self, id: lunch.id) { $0.participantIDs.insert(bob) }
      }
      await world.fake.waitForParkedRequests(1)
      world.fake.removeMembersRemotely([bob], from: lunch.id, by: ann)
      await world.engine.pullNotifications()

      // when
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then
      let expected: Set<UUID> = [world.me, ann]
      #expect(world.ui.object(Conversation.self, id: lunch.id)?.participantIDs == expected)
      #expect(Set(world.fake.members(of: lunch.id)) == expected)
      #expect(world.fake.journal.filter { $0.route == .addMembers }.count == 1)
    }
  }
}
