import ConversationParsing
import EventParsing
import Foundation
import Models
import ModelsTestSupport
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

@Suite("SyncWorld", .tags(.testSupport, .sync), .courier(timeBudget: .seconds(10)))
@MainActor
struct SyncWorldTests {
  @Test("Starting fetches what the backend was seeded with before the test reads anything")
  func startSettlesFirstFetch() async throws {
    // given
    let ann = Locked<UUID?>(nil)

    // when
    let world = try await SyncWorld.start { fake, _ in
      let user = fake.insertUser(name: "Ann")
      fake.requestConnectionRemotely(from: user)
      ann.withLock { $0 = user }
    }

    // then
    let requester = try #require(ann.withLock { $0 })
    #expect(world.selfUser?.name == "Me")
    #expect(world.ui.object(Connection.self, id: requester)?.status == .pending)
  }

  @Test("A connected contact, a group with it and a message reach the backend once settled")
  func groupAndMessage() async throws {
    // given
    let world = try await SyncWorld.start()
    let (ann, _) = try await world.contactWithConversation(named: "Ann")

    // when
    let group = try await world.group(named: "Lunch", members: [ann])
    try world.write("Hello", in: group)
    let queue = await world.settle()

    // then
    #expect(queue.isIdle)
    #expect(Set(world.fake.members(of: group.id)) == [world.me, ann])
    #expect(world.fake.messages(in: group.id).map(\.text) == ["Hello"])
  }
}
