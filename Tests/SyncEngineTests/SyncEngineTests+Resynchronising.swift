import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests {
  /// A backend keeps its notifications for a limited time; a client away for longer than that
  /// must catch up from what the backend holds now, not from the news it still has.
  @Suite("Catching up after the backend forgot the cursor")
  @MainActor
  struct Resynchronising {
    /// A world with Ann connected and two groups with her, caught up with the news.
    static func start() async throws -> (world: SyncWorld, ann: UUID, lunch: UUID, team: UUID) {
      var ids: (ann: UUID, lunch: UUID, team: UUID)?
      let world = try await SyncWorld.start { fake, me in
        let ann = fake.insertUser(name: "Ann")
        fake.connectRemotely(with: ann)
        let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
        let team = fake.createGroupRemotely(name: "Team", by: ann, members: [me])
        ids = (ann, lunch, team)
      }
      let (ann, lunch, team) = try #require(ids)
      return (world, ann, lunch, team)
    }

    /// Makes a group called Mine with `ann` here, whose creation the backend applies and
    /// answers only once the test releases its parked requests.
    static func createWithAnswerHeld(in world: SyncWorld, with ann: UUID) async throws
      -> Conversation
    {
      world.fake.addFault(.once(RequestMatcher("POST", "/conversations"), .holdAnswer))
      let me = try #require(world.ui.selfUser)
      var created = world.make.conversation(name: "Mine", creator: me)
      created.participantIDs.insert(ann)
      try world.save([created])
      await world.fake.waitForParkedRequests(1)
      return created
    }

    /// Lets the parked requests of `method` go on, and returns where they were parked.
    @discardableResult
    static func releaseParked(_ method: String, in world: SyncWorld) -> [Int] {
      let parked = world.fake.parkedRequests.filter {
        world.fake.parkedRequest($0)?.method == method
      }
      for index in parked { world.fake.releaseParkedRequest(index) }
      return parked
    }

    @Test(
      "A pull whose cursor the backend forgot brings the groups, names and members the backend holds now"
    )
    func catchesUpWithForgottenNews() async throws {
      // given: while the app was away, Ann renamed herself and a group, removed the self user
      // from another and made a new one with them; the backend then forgot all those news
      let (world, ann, lunch, team) = try await Self.start()
      #expect(world.ui.object(Conversation.self, id: lunch) != nil)
      world.fake.renameUserRemotely(ann, to: "Annie")
      world.fake.renameRemotely(team, to: "Crew", by: ann)
      world.fake.removeMembersRemotely([world.me], from: lunch, by: ann)
      let trip = world.fake.createGroupRemotely(name: "Trip", by: ann, members: [world.me])
      world.fake.expireNotifications(keepingLast: 0)

      // when
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(world.ui.object(Conversation.self, id: trip)?.name == "Trip")
      #expect(world.ui.object(Conversation.self, id: team)?.name == "Crew")
      #expect(world.ui.object(Conversation.self, id: lunch) == nil)
      #expect(world.ui.object(User.self, id: ann)?.name == "Annie")
    }

    @Test(
      "A catch-up keeps the messages whose news the backend still holds, in every group it brings"
    )
    func keepsMessagesTheBackendStillHolds() async throws {
      // given: Ann wrote in Team, the backend forgot that and the cursor, then Ann wrote in Team
      // again and in a group she made with the self user, and the backend still holds both
      let (world, ann, _, team) = try await Self.start()
      let forgotten = try #require(
        world.fake.postMessageRemotely(in: team, from: ann, text: "old"))
      world.fake.expireNotifications(keepingLast: 0)
      let kept = try #require(world.fake.postMessageRemotely(in: team, from: ann, text: "hi"))
      let trip = world.fake.createGroupRemotely(name: "Trip", by: ann, members: [world.me])
      let planned = try #require(
        world.fake.postMessageRemotely(in: trip, from: ann, text: "plans"))

      // when
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(world.ui.object(Message.self, id: kept)?.text == "hi")
      #expect(world.ui.object(Message.self, id: planned)?.text == "plans")
      #expect(world.ui.object(Message.self, id: forgotten) == nil)
      #expect(await world.engine.lastNotificationID == world.fake.notifications.last?.id)
    }

    @Test(
      "A group made here whose creation the backend applied goes in a catch-up that reads the self user's removal from it"
    )
    func createdGroupLeftBeforeCatchUp() async throws {
      // given: the backend applies the creation of Mine and holds its answer; Ann removes the
      // self user from it, and the backend forgets every news but that removal
      let (world, ann, _, _) = try await Self.start()
      let created = try await Self.createWithAnswerHeld(in: world, with: ann)
      world.fake.removeMembersRemotely([world.me], from: created.id, by: ann)
      world.fake.expireNotifications(keepingLast: 1)

      // when
      await world.engine.pullNotifications()
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then
      #expect(world.ui.object(Conversation.self, id: created.id) == nil)
      #expect(world.fake.members(of: created.id) == [ann])
    }

    @Test(
      "After catching up, the news are read from the newest the backend held, and later ones arrive"
    )
    func readsNewsFromTheNewest() async throws {
      // given
      let (world, ann, _, team) = try await Self.start()
      world.fake.renameRemotely(team, to: "Crew", by: ann)
      world.fake.expireNotifications(keepingLast: 1)
      world.fake.renameRemotely(team, to: "Band", by: ann)
      world.fake.expireNotifications(keepingLast: 1)
      await world.engine.pullNotifications()
      await world.settle()
      let caughtUpAt = await world.engine.lastNotificationID

      // when
      world.fake.renameRemotely(team, to: "Choir", by: ann)
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(caughtUpAt == world.fake.notifications.first?.id)
      #expect(await world.engine.lastNotificationID == world.fake.notifications.last?.id)
      #expect(world.ui.object(Conversation.self, id: team)?.name == "Choir")
    }

    @Test("Changes made here and not yet pushed survive catching up, and reach the server after")
    func localChangesSurvive() async throws {
      // given: offline, the user renames a group, adds Bob to it and creates another; meanwhile
      // Ann added Cat to the first, and the backend forgot the news
      let (world, ann, _, team) = try await Self.start()
      let bob = world.fake.insertUser(name: "Bob")
      let cat = world.fake.insertUser(name: "Cat")
      await world.engine.setOnline(false)
      let me = try #require(world.ui.selfUser)
      let created = world.make.conversation(name: "Mine", creator: me)
      try world.save([created]) { context in
        try context.update(Conversation.self, id: team) {
          $0.name = "Ours"
          $0.participantIDs.insert(bob)
        }
      }
      await world.settle(allowing: .engineOffline)
      world.fake.addMembersRemotely([cat], to: team, by: ann)
      world.fake.expireNotifications(keepingLast: 0)
      await world.engine.pullNotifications()
      await world.settle(allowing: .engineOffline)
      let caughtUp = world.ui.object(Conversation.self, id: team)

      // when
      await world.engine.setOnline(true)
      await world.settle()

      // then
      #expect(caughtUp?.name == "Ours")
      #expect(caughtUp?.participantIDs == [world.me, ann, bob, cat])
      #expect(world.ui.object(Conversation.self, id: created.id) != nil)
      #expect(world.fake.conversation(team)?.name == "Ours")
      #expect(world.fake.members(of: team).sorted() == [world.me, ann, bob, cat].sorted())
      #expect(world.fake.conversation(created.id)?.name == "Mine")
    }

    @Test(
      "A catch-up cut short by a failed list or fetch of the self user changes nothing, and the next pull catches up, a rename from another device included",
      arguments: ["/conversations", "/self"])
    func failedCatchUpTriedAgain(failing path: String) async throws {
      // given: Ann removed the self user from Lunch and they renamed themselves on another
      // device; the backend forgot the news, and refuses one request of the catch-up
      expectLoggedError(containing: "GET \(path) answered 403")
      let (world, ann, lunch, _) = try await Self.start()
      world.fake.renameUserRemotely(world.me, to: "Elsewhere")
      world.fake.removeMembersRemotely([world.me], from: lunch, by: ann)
      world.fake.expireNotifications(keepingLast: 0)
      let stale = await world.engine.lastNotificationID
      world.fake.addFault(.once(RequestMatcher("GET", path), .status(403)))
      await world.engine.pullNotifications()
      await world.settle()
      let afterFailure = await world.engine.lastNotificationID
      let keptLunch = world.ui.object(Conversation.self, id: lunch) != nil

      // when
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(afterFailure == stale)
      #expect(keptLunch)
      #expect(world.ui.object(Conversation.self, id: lunch) == nil)
      #expect(world.ui.selfUser?.name == "Elsewhere")
    }

    @Test(
      "A catch-up whose fetch of the self user was read before an accent change's answer keeps the answered accent, and brings a rename from another device whose news the backend forgot"
    )
    func selfFetchReadBeforeAnswer() async throws {
      // given: the backend applied an accent change and holds its answer; the self user renamed
      // themselves on another device, and the backend forgot the news; the catch-up's fetch of
      // the self user is held on its way back too
      let (world, _, _, _) = try await Self.start()
      world.fake.addFault(.once(RequestMatcher("PUT", "/self"), .holdAnswer))
      try world.save { try $0.update(User.self, id: world.me) { $0.accentID = 5 } }
      await world.fake.waitForParkedRequests(1)
      world.fake.renameUserRemotely(world.me, to: "Elsewhere")
      world.fake.expireNotifications(keepingLast: 0)
      world.fake.addFault(.once(RequestMatcher("GET", "/self"), .holdAnswer))
      let pull = Task { await world.engine.pullNotifications() }
      await world.fake.waitForParkedRequests(2)
      let accentChange = Self.releaseParked("PUT", in: world)
      await world.settle()

      // when: the fetch's answer arrives after the accent change's
      world.fake.releaseAllParkedRequests()
      await pull.value
      await world.settle()

      // then
      #expect(accentChange.count == 1)
      #expect(world.ui.selfUser?.name == "Elsewhere")
      #expect(world.ui.selfUser?.accentID == 5)
    }

    @Test(
      "A message the user deleted stays gone when a pull reads the news of its posting and the backend forgets those of its deletion before the next page"
    )
    func deletedMessageWhoseDeletionNewsAreForgotten() async throws {
      // given: news come one a page; the user writes in Lunch and deletes the message, both
      // answered, then a pull reads the page of its posting, and the backend forgets every
      // news while the next page is asked for
      var lunchID: UUID?
      let world = try await SyncWorld.start(downstream: DownstreamSync(pageSize: 1)) {
        fake, me in
        let ann = fake.insertUser(name: "Ann")
        fake.connectRemotely(with: ann)
        lunchID = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      }
      let id = try #require(lunchID)
      let lunch = try #require(world.ui.object(Conversation.self, id: id))
      let me = try #require(world.selfUser)
      let message = world.make.message(in: lunch, from: me, text: "Bye")
      try world.save([message])
      await world.settle()
      try world.save { try $0.delete(Message.self, id: message.id) }
      await world.settle()
      world.fake.addFault(FaultRule(RequestMatcher("GET", "/notifications"), steps: [nil, .park]))
      let pull = Task { await world.engine.pullNotifications() }
      await world.fake.waitForParkedRequests(1)
      world.fake.expireNotifications(keepingLast: 0)

      // when
      world.fake.releaseAllParkedRequests()
      await pull.value
      await world.settle()

      // then
      #expect(world.ui.object(Message.self, id: message.id) == nil)
      #expect(world.fake.journal.filter { $0.request.path == "/notifications/last" }.count == 1)
      let awaited = await world.stack.sync.perform { $0.syncMetadata.awaitedNews }
      #expect(awaited.isEmpty)
    }

    @Test(
      "A catch-up whose list of conversations was read before a member removal's answer keeps the member out, here and on the server"
    )
    func listReadBeforeRemovalAnswer() async throws {
      // given: Bob is in Lunch; the user takes him out, and that request waits on its way
      // there, then adds Cat, which waits for it; the backend forgot the news, and the
      // catch-up's list of conversations, which still has Bob in Lunch, is held on its way back
      // while the removal is applied and answered, and the addition of Cat is sent and waits
      let (world, ann, lunch, _) = try await Self.start()
      let bob = world.fake.insertUser(name: "Bob")
      let cat = world.fake.insertUser(name: "Cat")
      world.fake.connectRemotely(with: bob)
      world.fake.connectRemotely(with: cat)
      world.fake.addMembersRemotely([bob], to: lunch, by: ann)
      await world.engine.pullNotifications()
      await world.settle()
      world.fake.addFault(.once(RequestMatcher("DELETE", "/conversations/\(lunch)/members"), .park))
      try world.save {
        try $0.update(Conversation.self, id: lunch) { $0.participantIDs.remove(bob) }
      }
      await world.fake.waitForParkedRequests(1)
      try world.save {
        try $0.update(Conversation.self, id: lunch) { $0.participantIDs.insert(cat) }
      }
      world.fake.expireNotifications(keepingLast: 0)
      world.fake.addFault(.once(RequestMatcher("GET", "/conversations"), .holdAnswer))
      let pull = Task { await world.engine.pullNotifications() }
      await world.fake.waitForParkedRequests(2)
      world.fake.addFault(.once(RequestMatcher("POST", "/conversations/\(lunch)/members"), .park))
      let removal = Self.releaseParked("DELETE", in: world)
      await world.fake.waitForParkedRequests(2)

      // when: the list's answer arrives after the removal's, and then Cat's addition goes on;
      // the list, read before the removal's answer, leaves Bob as the answer set him
      Self.releaseParked("GET", in: world)
      await pull.value
      world.fake.releaseAllParkedRequests()
      await world.settle()
      await world.engine.pullNotifications()
      await world.settle()

      // then
      #expect(removal.count == 1)
      let here = try #require(world.ui.object(Conversation.self, id: lunch)?.participantIDs)
      #expect(!here.contains(bob))
      #expect(here.contains(cat))
      #expect(Set(world.fake.members(of: lunch)) == here)
      #expect(world.fake.journal.filter { $0.request.path == "/conversations" }.count == 1)
    }

    @Test(
      "A catch-up whose lists were read before a rename's answer applies them once, brings what the backend forgot, and keeps the answered name"
    )
    func catchUpReadBeforeRenameAnswer() async throws {
      // given: Ann made a group Trip with the self user and the backend forgot the news; the
      // user renames Lunch, and the rename's answer lands while the catch-up's list of
      // conversations, which still says Lunch, is held on its way back
      let (world, ann, lunch, _) = try await Self.start()
      let trip = world.fake.createGroupRemotely(name: "Trip", by: ann, members: [world.me])
      world.fake.expireNotifications(keepingLast: 0)
      world.fake.addFault(.once(RequestMatcher("PUT", "/conversations/\(lunch)"), .park))
      world.fake.addFault(.once(RequestMatcher("GET", "/conversations"), .holdAnswer))
      try world.save { try $0.update(Conversation.self, id: lunch) { $0.name = "Brunch" } }
      await world.fake.waitForParkedRequests(1)
      let pull = Task { await world.engine.pullNotifications() }
      await world.fake.waitForParkedRequests(2)
      Self.releaseParked("PUT", in: world)
      await world.settle(allowing: .stuckWork)

      // when: the list's answer arrives after the rename's, and the news after the catch-up
      // wait on their way
      world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .park))
      Self.releaseParked("GET", in: world)
      await world.fake.waitForParkedRequests(1)
      await world.settle(allowing: .stuckWork)
      let afterCatchUp = world.ui.object(Conversation.self, id: lunch)?.name
      world.fake.releaseAllParkedRequests()
      await pull.value
      await world.settle()

      // then: the list's older name never showed
      #expect(afterCatchUp == "Brunch")
      #expect(world.ui.object(Conversation.self, id: trip)?.name == "Trip")
      #expect(world.ui.object(Conversation.self, id: lunch)?.name == "Brunch")
      #expect(world.fake.conversation(lunch)?.name == "Brunch")
      #expect(world.fake.journal.filter { $0.request.path == "/conversations" }.count == 1)
    }

    @Test(
      "A refused rename of the self user given up after a catch-up returns to the name the backend holds, from a rename elsewhere whose news it forgot"
    )
    func refusedRenameGivenUpAfterCatchUp() async throws {
      // given: the backend refuses a rename made here; the self user renames themselves on
      // another device, the backend forgets the news, and the app catches up
      expectLoggedError(containing: "refused for good")
      let (world, _, _, _) = try await Self.start()
      world.fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(400)))
      try world.save { try $0.update(User.self, id: world.me) { $0.name = "Here" } }
      await world.settle()
      world.fake.renameUserRemotely(world.me, to: "Elsewhere")
      world.fake.expireNotifications(keepingLast: 0)
      await world.engine.pullNotifications()
      await world.settle()
      let kept = world.ui.selfUser?.name

      // when
      await world.engine.discardFailedChange(of: ObjectReference(User.entityName, world.me))
      await world.settle()

      // then
      #expect(kept == "Here")
      #expect(world.ui.selfUser?.name == "Elsewhere")
    }

    @Test("Catching up tells the app, with the conversations it dropped")
    func tellsTheApp() async throws {
      // given
      let events = Recorder<SyncEngineEvent>()
      let fake = FakeBackend()
      let me = fake.insertSelfUser()
      let ann = fake.insertUser(name: "Ann")
      let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      let stack = ModelStack.forTesting()
      let engine = SyncEngine(stack: stack, transport: fake.transport, onEvent: events.record)
      await engine.start()
      await expectSettled(stack.tracker)
      fake.removeMembersRemotely([me], from: lunch, by: ann)
      fake.expireNotifications(keepingLast: 1)

      // when
      await engine.pullNotifications()
      await expectSettled(stack.tracker)

      // then
      let last = try #require(fake.notifications.last?.id)
      #expect(events.elements.contains(.caughtUp(lastID: last, droppedConversations: [lunch])))
    }
  }
}
