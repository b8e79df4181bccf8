import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests {
  /// A change whose answer was lost goes again under the key it first went with, however long
  /// the app waits before sending it again and whatever else of the object is in flight.
  @Suite("Changes whose answers were lost")
  @MainActor
  struct LostAnswers {
    /// The idempotency keys of the requests that posted messages, in the order they came.
    static func postKeys(_ fake: FakeBackend) -> [String?] {
      fake.requests(.postMessage).map { $0.request.headers["idempotency-key"] }
    }

    @Test(
      "A message whose answer was lost just before the app went offline goes again under its first key once online"
    )
    func resentUnderFirstKeyAfterOffline() async throws {
      // given: the backend applies the message, its answer is lost, and the app goes offline
      let world = try await SyncWorld.start()
      let (_, chat) = try await world.contactWithConversation(named: "Ann")
      world.fake.addFault(.once(RequestMatcher(.postMessage), .loseResponse))
      try world.write("Hi", in: chat)
      await pollingConfirmation("the lost post reached the backend", until: .firstPass) {
        world.fake.requests(.postMessage).count == 1
      }
      await world.setNetwork(.offline)
      await world.settle(allowing: .engineOffline)

      // when
      await world.setNetwork(.online)
      await world.engine.pullNotifications()
      await world.settle()

      // then: sent again, if at all, as the same attempt
      let keys = Self.postKeys(world.fake)
      #expect(Set(keys).count == 1, "\(keys)")
    }

    @Test(
      "Two changes of one group whose answers were both lost, a rename and a member's removal, each go again under its own first key"
    )
    func twoLostUpdatesOfOneObject() async throws {
      // given: Lunch with Ann and Bob, renamed and without Bob in one save, both answers lost
      var ids: (bob: UUID, lunch: UUID)?
      let world = try await SyncWorld.start { fake, me in
        let ann = fake.insertUser(name: "Ann")
        let bob = fake.insertUser(name: "Bob")
        fake.connectRemotely(with: ann)
        fake.connectRemotely(with: bob)
        ids = (bob, fake.createGroupRemotely(name: "Lunch", by: me, members: [ann, bob]))
      }
      let (bob, lunch) = try #require(ids)
      world.fake.addFault(.times(2, .any(except: "GET"), .loseResponse))

      // when
      try world.save {
        try $0.update(Conversation.self, id: lunch) {
          $0.name = "Tea"
          $0.participantIDs.remove(bob)
        }
      }
      await world.settle()

      // then: each call went under one key, and the backend holds both changes
      for route in [Route.renameConversation, .removeMembers] {
        let keys = world.fake.requests(route).map { $0.request.headers["idempotency-key"] }
        #expect(Set(keys).count == 1, "\(route): \(keys)")
      }
      #expect(world.fake.conversationSummary(lunch)?.name == "Tea")
    }
  }
}
