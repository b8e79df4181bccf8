import ConversationParsing
import FakeBackend
import Foundation
import JSON
import Models
import ModelsTestSupport
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

extension SyncEngineTests {
  /// The promise the sync layer makes to an app, one test per way it was once broken: no change
  /// is sent twice at once, none is lost, and a failure blocks nothing else.
  @Suite("The sync promise", .tags(.integration))
  @MainActor
  struct Promise {
    @Test("Overlapping profile edits never put one key in flight twice, and the last edit wins")
    func overlappingEditsOfOneKey() async throws {
      // given
      let world = try await SyncWorld.start()
      world.fake.addFault(.always(RequestMatcher("PUT", "/self"), .park))
      try world.save { try $0.update(User.self, id: world.me) { $0.name = "First" } }
      await world.fake.waitForParkedRequests(1)
      try world.save { try $0.update(User.self, id: world.me) { $0.accentID = 5 } }
      await world.fake.waitForParkedRequests(2)
      try world.save { try $0.update(User.self, id: world.me) { $0.name = "Second" } }

      // when: the accent request is answered first, while the first name is still out
      let accent = try #require(world.fake.parkedRequests.last)
      world.fake.releaseParkedRequest(accent)
      await world.settle(allowing: .stuckWork)
      let parked = Set(world.fake.parkedRequests)
      let namesInFlight = world.fake.journal.filter { parked.contains($0.index) }
        .compactMap { $0.request.json?["name"] }
      world.fake.removeFaults()
      for index in world.fake.parkedRequests.reversed() { world.fake.releaseParkedRequest(index) }
      await world.settle()
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(namesInFlight.count <= 1, "name PUTs in flight at once: \(namesInFlight)")
      #expect(world.fake.user(world.me)?.name == "Second")
      #expect(world.ui.selfUser?.name == "Second")
    }

    @Test("Renaming a group and adding a member in one save sends both changes")
    func renameAndAddInOneSave() async throws {
      // given
      var contact: UUID?
      let world = try await SyncWorld.start { fake, _ in contact = fake.insertUser(name: "Bob") }
      let bob = try #require(contact)
      try await world.connect(bob)
      let group = Conversation(
        id: world.ui.makeID(), kind: .group, name: "Lunch", creatorID: world.me,
        participantIDs: [world.me], lastEventTime: Date(timeIntervalSince1970: 1_800_000_000))
      try world.save([group])
      await world.settle()

      // when
      try world.save {
        try $0.update(Conversation.self, id: group.id) {
          $0.name = "Dinner"
          $0.participantIDs.insert(bob)
        }
      }
      await world.settle()

      // then
      let server = world.fake.conversation(group.id)
      #expect(server?.name == "Dinner")
      #expect(server?.otherMembers.contains(bob) == true)
      #expect(await world.engine.queue().isEmpty)
    }

    @Test("A message refused for good is shown failed, and later messages are still sent in order")
    func failedMessageBlocksNothing() async throws {
      // given
      let world = try await SyncWorld.start()
      let (_, conversation) = try await world.contactWithConversation()
      expectLoggedError(containing: "was refused for good")
      world.fake.addFault(.once(RequestMatcher("POST", "/conversations/*/messages"), .status(400)))

      // when
      var messages: [Message] = []
      for text in ["refused", "second", "third"] {
        let message = world.make.message(
          in: conversation, from: try #require(world.ui.selfUser), text: text)
        messages.append(message)
        try world.save([message])
      }
      await world.settle()
      let queue = await world.engine.queue()

      // then
      #expect(world.fake.messages(in: conversation.id).map(\.text) == ["second", "third"])
      #expect(queue.failed.map(\.object) == [ObjectReference(.message, messages[0].id)])
      #expect(queue.blocked.isEmpty)
      #expect(world.ui.object(Message.self, id: messages[0].id)?.deliveryState == .failed)
    }

    @Test("Leaving a group sends DELETE /conversations/{id}/members for the self user")
    func leavingAGroupReachesTheServer() async throws {
      // given
      let world = try await SyncWorld.start()
      let group = Conversation(
        id: world.ui.makeID(), kind: .group, name: "Lunch", creatorID: world.me,
        participantIDs: [world.me], lastEventTime: Date(timeIntervalSince1970: 1_800_000_000))
      try world.save([group])
      await world.settle()

      // when
      try world.save { try $0.delete(Conversation.self, id: group.id) }
      await world.settle()

      // then
      #expect(world.fake.requests("DELETE", "/conversations/*/members").count == 1)
      #expect(world.fake.members(of: group.id) == [])
      #expect(await world.engine.queue().isEmpty)
    }

    @Test(
      "A pull the backend answers after a later pull applies no news twice, so a rename saved in between is kept"
    )
    func overtakenPull() async throws {
      // given: Bob removed the self user from his group and added them back; a pull of that
      // news is held on its way while a later one applies it, and a rename is saved and sent
      let world = try await SyncWorld.start()
      let (bob, _) = try await world.contactWithConversation(named: "Bob")
      let group = try await world.group(named: "Lunch", members: [bob])
      world.fake.removeMembersRemotely([world.me], from: group.id, by: bob)
      world.fake.addMembersRemotely([world.me], to: group.id, by: bob)
      world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .park))
      let overtaken = Task { await world.engine.pullNotifications() }
      await world.fake.waitForParkedRequests(1)
      let heldPull = try #require(world.fake.parkedRequests.first)
      await world.engine.pullNotifications()
      await world.settle()
      world.fake.addFault(.once(RequestMatcher("PUT", "/conversations/*"), .park))
      try world.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Dinner" } }
      await world.fake.waitForParkedRequests(2)

      // when: the held pull is answered, then the rename
      world.fake.releaseParkedRequest(heldPull)
      await overtaken.value
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then
      #expect(world.fake.conversation(group.id)?.name == "Dinner")
      #expect(world.ui.object(Conversation.self, id: group.id)?.name == "Dinner")
      #expect(await world.engine.queue().isEmpty)
    }
  }
}
