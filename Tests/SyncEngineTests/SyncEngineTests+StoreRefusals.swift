import ConversationParsing
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import TestSupport
import Testing

extension SyncEngineTests {
  /// A store may refuse a save for a while (a full disk, a database another process holds):
  /// what the engine applied in that save is not lost, and reaches the store and the UI once
  /// the store takes saves again.
  @Suite("A store that refuses saves")
  @MainActor
  struct StoreRefusals {
    /// An engine on a store that refuses saves when told to, against a fresh fake with a group
    /// Ann made with the self user in it.
    struct Running {
      let fake = FakeBackend()
      let store = RefusingStore()
      let stack: ModelStack
      let engine: SyncEngine
      let me: UUID
      let ann: UUID
      let group: UUID

      init() async throws {
        me = fake.insertSelfUser(name: "Me")
        ann = fake.insertUser(name: "Ann")
        group = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
        stack = try ModelStack(store: store)
        engine = SyncEngine(stack: stack, transport: fake.transport)
        await engine.start()
        _ = await engine.settle(timeout: TimeoutScale.scaled(.seconds(5)))
      }

      /// The group's name in the UI context, once every merge landed.
      @MainActor
      func groupName() async -> String? {
        await expectSettled(stack.tracker)
        return stack.ui.context.object(Conversation.self, id: group)?.name
      }
    }

    @Test("News applied in a save the store refused are not lost: the next pull brings them")
    func newsOfARefusedSave() async throws {
      // given: Ann renames the group, and the store refuses the save of the pull that reads it
      let running = try await Running()
      _ = running.fake.renameRemotely(running.group, to: "Dinner", by: running.ann)
      running.store.refuseNextSaves(1)
      expectLoggedError(containing: "could not apply")
      await running.engine.pullNotifications()

      // when
      await running.engine.pullNotifications()

      // then
      #expect(await running.groupName() == "Dinner")
      #expect(
        running.store.load().tables.object(Conversation.self, id: running.group)?.name == "Dinner")
    }

    @Test(
      "A change dropped with its group by news whose save the store refused is still told to the app (simulator seed 8194 of 300 steps)"
    )
    func droppedInARefusedSave() async throws {
      // given: the user renames Ann's group, and a 503 holds the rename on the engine's clock;
      // Ann removes the self user meanwhile
      let (_, store, engine, events, group) = try await Self.renameHeldWhileRemoved()
      store.refuseNextSaves(1)
      expectLoggedError(containing: "could not apply")

      // when: the pull that reads the removal drops the group and the rename, and its save is
      // refused
      await engine.pullNotifications()

      // then
      #expect(Self.dropped(in: events) == [group])
      await engine.stop()
    }

    @Test(
      "A change dropped with its group by a catch-up whose save the store refused is still told to the app"
    )
    func droppedInARefusedCatchUp() async throws {
      // given: as above, and the backend forgets its news, so the pull catches up
      let (fake, store, engine, events, group) = try await Self.renameHeldWhileRemoved()
      _ = fake.expireNotifications(keepingLast: 0)
      // The self user fetched again changed nothing, so the catch-up's is the next save.
      store.refuseNextSaves(1)
      expectLoggedError(containing: "could not apply")

      // when
      await engine.pullNotifications()

      // then
      #expect(Self.dropped(in: events) == [group])
      await engine.stop()
    }

    /// A running engine whose user renamed Ann's group, the rename held on the engine's clock by
    /// a 503, after Ann removed the self user, unknown here.
    static func renameHeldWhileRemoved() async throws -> (
      FakeBackend, RefusingStore, SyncEngine, Recorder<SyncEngineEvent>, group: UUID
    ) {
      let fake = FakeBackend()
      let store = RefusingStore()
      let clock = ManualTimeSource()
      let events = Recorder<SyncEngineEvent>()
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann")
      let group = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      let stack = try ModelStack(store: store)
      let engine = SyncEngine(
        stack: stack, transport: fake.transport, time: clock, onEvent: events.record)
      await engine.start()
      await expectSettled(stack.tracker)
      fake.addFault(.once(RequestMatcher("PUT", "/conversations/*"), .status(503)))
      try stack.ui.context.update(Conversation.self, id: group) { $0.name = "Dinner" }
      try stack.ui.context.save()
      await clock.waitForSleepers(1)
      fake.removeMembersRemotely([me], from: group, by: ann)
      return (fake, store, engine, events, group)
    }

    /// The groups of the changes `events` told were dropped, each checked to be the group's own
    /// change.
    static func dropped(in events: Recorder<SyncEngineEvent>) -> [UUID] {
      events.elements.compactMap { event -> UUID? in
        guard case .changeDropped(let change) = event,
          change.item.object == ObjectReference(.conversation, change.conversation)
        else { return nil }
        return change.conversation
      }
    }

    @Test("A refused change given up in a save the store refused ends as the backend holds it")
    func giveUpInARefusedSave() async throws {
      // given: the backend refuses a rename for good, and the store refuses the save in which
      // the app gives the rename up
      let running = try await Running()
      running.fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(400)))
      expectLoggedError(containing: "refused for good")
      try running.stack.ui.context.update(User.self, id: running.me) { $0.name = "Ada" }
      try running.stack.ui.context.save()
      _ = await running.engine.settle(timeout: TimeoutScale.scaled(.seconds(5)))
      running.store.refuseNextSaves(1)
      expectLoggedError(containing: "could not apply")
      await running.engine.discardFailedChange(of: ObjectReference(.user, running.me))

      // when: the next save the sync context makes, here the pull's
      await running.engine.pullNotifications()

      // then
      await expectSettled(running.stack.tracker)
      #expect(running.stack.ui.context.object(User.self, id: running.me)?.name == "Me")
      #expect(running.store.load().tables.object(User.self, id: running.me)?.name == "Me")
      #expect(await running.engine.queue().isIdle)
    }

    @Test("A message whose answer was applied in a save the store refused still ends sent")
    func answerOfARefusedSave() async throws {
      // given: the store takes the UI's save and the sync context's save before the request
      // goes, and refuses the save of the answer
      let running = try await Running()
      let message = Message(
        nonce: UUID(), conversationID: running.group, senderID: running.me, text: "hi",
        localTime: Date(timeIntervalSince1970: 1_800_000_000))
      running.store.refuseNextSaves(1, after: 2)
      expectLoggedError(containing: "could not apply")
      try running.stack.ui.context.insert(message)
      try running.stack.ui.context.save()
      _ = await running.engine.settle(timeout: TimeoutScale.scaled(.seconds(5)))

      // when: the next pull, whose news of the message bring what the refused save dropped
      await running.engine.pullNotifications()

      // then
      await expectSettled(running.stack.tracker)
      #expect(running.fake.messages(in: running.group).map(\.text) == ["hi"])
      #expect(running.stack.ui.context.object(Message.self, id: message.id)?.deliveryState == .sent)
      #expect(
        running.store.load().tables.object(Message.self, id: message.id)?.deliveryState == .sent)
    }

    @Test(
      "A user fetched in a save the store refused reaches the UI and the store with the next save"
    )
    func userOfARefusedSave() async throws {
      // given: Bob, whom the client does not know, writes in the group; the store takes the
      // save of the news and refuses the save of Bob's profile
      let running = try await Running()
      let bob = running.fake.insertUser(name: "Bob")
      running.fake.addMembersRemotely([bob], to: running.group, by: running.ann)
      running.fake.postMessageRemotely(in: running.group, from: bob, text: "hi")
      running.store.refuseNextSaves(1, after: 1)
      expectLoggedError(containing: "could not apply")
      await running.engine.pullNotifications()

      // when
      await running.engine.pullNotifications()

      // then
      await expectSettled(running.stack.tracker)
      #expect(running.stack.ui.context.object(User.self, id: bob)?.name == "Bob")
      #expect(running.store.load().tables.object(User.self, id: bob)?.name == "Bob")
    }

    @Test(
      "An app killed while a member change is out keeps the user's later edit, whether or not the store refused the save before the change went",
      arguments: [false, true])
    func killedWithChangeOut(refusingTheSaveBefore refuses: Bool) async throws {
      // given: Ann's group with the self user in it; offline, the user removes Ann; the store
      // refuses the sync context's next save if told to, and the backend holds the request
      let fake = FakeBackend()
      let me = fake.insertSelfUser(name: "Me")
      let ann = fake.insertUser(name: "Ann")
      let group = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      let store = RefusingStore()
      let stack = try ModelStack(store: store)
      let clock = ManualTimeSource()
      let engine = SyncEngine(stack: stack, transport: fake.transport, time: clock)
      await engine.start()
      _ = await engine.settle(
        advancing: clock, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
      await engine.setOnline(false)
      try stack.ui.context.update(Conversation.self, id: group) { $0.participantIDs.remove(ann) }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)
      if refuses { store.refuseNextSaves(1) }
      // That refusal, or the killed app's save of the held request's answer.
      expectLoggedError(containing: "could not apply")
      fake.addFault(.once(RequestMatcher("DELETE", "/conversations/*/members"), .park))
      await engine.setOnline(true)
      // Either the request is held, or nothing is left running.
      while fake.parkedRequests.isEmpty,
        !(await stack.tracker.settle(within: .milliseconds(20))).isEmpty
      {}
      // The app is killed: what the store holds now is all the next launch has.
      let durable = store.load()
      store.refuseNextSaves(.max)
      await engine.stop()

      // when: started again, the user adds Ann back before the held request reaches the backend
      let relaunched = try ModelStack(store: InMemoryStore(state: durable))
      try relaunched.ui.context.update(Conversation.self, id: group) {
        $0.participantIDs.insert(ann)
      }
      try relaunched.ui.context.save()
      fake.releaseAllParkedRequests()
      let next = SyncEngine(stack: relaunched, transport: fake.transport, time: clock)
      await next.start()
      _ = await next.settle(advancing: clock, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
      await expectSettled(stack.tracker)

      // then
      #expect(fake.members(of: group).contains(ann))
      #expect(
        relaunched.ui.context.object(Conversation.self, id: group)?.participantIDs == [me, ann])
    }
  }
}
