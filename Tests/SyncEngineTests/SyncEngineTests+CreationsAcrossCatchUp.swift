import CourierAPI
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests.Resynchronising {
  /// A world in which the backend applied the creation of Mine and holds its answer, Ann then
  /// made `change` to it and renamed Team to Crew, the backend forgot every news but that
  /// rename, and the app caught up while the creation was unanswered.
  static func catchUpWhileCreationIsOut(
    after change: (_ fake: FakeBackend, _ created: UUID, _ ann: UUID, _ me: UUID) -> Void
  ) async throws -> (world: SyncWorld, ann: UUID, team: UUID, created: Conversation) {
    let (world, ann, _, team) = try await Self.start()
    let created = try await Self.createWithAnswerHeld(in: world, with: ann)
    change(world.fake, created.id, ann, world.me)
    world.fake.renameRemotely(team, to: "Crew", by: ann)
    world.fake.expireNotifications(keepingLast: 1)
    await world.engine.pullNotifications()
    await world.settle(allowing: .stuckWork)
    return (world, ann, team, created)
  }

  /// Ann's change that removes the self user from the group.
  static func removeSelf(_ fake: FakeBackend, _ group: UUID, _ ann: UUID, _ me: UUID) {
    fake.removeMembersRemotely([me], from: group, by: ann)
  }

  @Test(
    "A group made here that a catch-up could not settle goes once its creation is answered, when the self user was removed with news the backend forgot"
  )
  func createdGroupLeftWithForgottenNews() async throws {
    // given: the backend applies the creation of Mine and holds its answer; Ann removes the
    // self user from it, renames Team, and the backend forgets every news but the rename; the
    // app catches up while the creation is unanswered
    let (world, ann, team, created) = try await Self.catchUpWhileCreationIsOut(
      after: Self.removeSelf)
    let keptByTheCatchUp = world.ui.object(Conversation.self, id: created.id) != nil

    // when
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then
    #expect(keptByTheCatchUp)
    #expect(world.ui.object(Conversation.self, id: created.id) == nil)
    #expect(world.fake.members(of: created.id) == [ann])
    #expect(world.ui.object(Conversation.self, id: team)?.name == "Crew")
  }

  @Test(
    "An engine stopped before the answer to a creation a catch-up could not settle sends no pull for it, and its next start confirms the group",
    arguments: [false, true])
  func stoppedEngineSendsNoPull(startsAgain: Bool) async throws {
    // given: as above, and the app stops the engine before the answer comes
    let (world, _, _, created) = try await Self.catchUpWhileCreationIsOut(after: Self.removeSelf)
    await world.engine.stop()
    let asked = world.fake.journal.count

    // when: the answer comes, and the app may start the engine again
    world.fake.releaseAllParkedRequests()
    await world.settle()
    if startsAgain { await world.engine.start() }
    await world.settle()

    // then
    #expect((world.fake.journal.count == asked) != startsAgain)
    #expect((world.ui.object(Conversation.self, id: created.id) == nil) == startsAgain)
  }

  @Test(
    "A group made here that a catch-up could not settle stays once its creation is answered, when the self user is still in it"
  )
  func createdGroupStillJoinedAfterCatchUp() async throws {
    // given: as above, but Ann only renames the new group, with news the backend forgets
    let (world, ann, _, created) = try await Self.catchUpWhileCreationIsOut { fake, group, ann, _ in
      fake.renameRemotely(group, to: "Ours", by: ann)
    }

    // when
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then
    #expect(world.ui.object(Conversation.self, id: created.id)?.name == "Ours")
    #expect(world.ui.object(Conversation.self, id: created.id)?.participantIDs == [world.me, ann])
  }

  @Test(
    "A group made offline across a catch-up needs no second one: the news of its creation settle it"
  )
  func creationSentAfterCatchUp() async throws {
    // given: offline, the user makes a group; the backend forgets the cursor, and the app
    // catches up before the creation goes
    let (world, ann, _, team) = try await Self.start()
    await world.engine.setOnline(false)
    let me = try #require(world.ui.selfUser)
    let created = world.make.conversation(name: "Mine", creator: me)
    try world.save([created])
    await world.settle(allowing: .engineOffline)
    world.fake.renameRemotely(team, to: "Crew", by: ann)
    world.fake.expireNotifications(keepingLast: 0)
    await world.engine.pullNotifications()
    await world.settle(allowing: .engineOffline)

    // when
    await world.engine.setOnline(true)
    await world.settle()
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(world.fake.conversation(created.id) != nil)
    #expect(world.ui.object(Conversation.self, id: created.id) != nil)
    #expect(world.fake.journal.filter { $0.route == .getConversations }.count == 1)
  }

  @Test(
    "A group a catch-up could not settle is still confirmed after the app starts again, once its creation is sent again and answered"
  )
  func confirmationSurvivesRestart() async throws {
    // given: the backend applied the creation of Mine, but its answer was lost; Ann removed
    // the self user from it and renamed Lunch, the backend forgot every news but the rename,
    // and the app caught up and stopped before it sent the creation again
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock)
    let me = fake.insertSelfUser(name: "Me")
    let ann = fake.insertUser(name: "Ann")
    let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
    let store = InMemoryStore()
    let firstStack = try ModelStack(store: store, tracker: WorkTracker())
    let first = SyncEngine(stack: firstStack, transport: fake.transport, time: clock)
    await first.start()
    _ = await first.settle(advancing: clock, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
    fake.addFault(.once(RequestMatcher("POST", "/conversations"), .loseResponse))
    let selfUser = try #require(firstStack.ui.context.selfUser)
    var created = ModelFactory().conversation(name: "Mine", creator: selfUser)
    created.participantIDs.insert(ann)
    try firstStack.ui.context.insert(created)
    try firstStack.ui.context.save()
    await expectSettled(firstStack.tracker)
    fake.removeMembersRemotely([me], from: created.id, by: ann)
    fake.renameRemotely(lunch, to: "Brunch", by: ann)
    fake.expireNotifications(keepingLast: 1)
    await first.pullNotifications()
    await expectSettled(firstStack.tracker)
    await first.stop()
    let waiting = store.load().metadata.createdGroupsToConfirm

    // when
    let secondStack = try ModelStack(store: store, tracker: WorkTracker())
    let second = SyncEngine(stack: secondStack, transport: fake.transport, time: clock)
    await second.start()
    _ = await second.settle(advancing: clock, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))

    // then
    #expect(waiting == [created.id])
    #expect(secondStack.ui.context.object(Conversation.self, id: created.id) == nil)
    #expect(secondStack.ui.context.object(Conversation.self, id: lunch)?.name == "Brunch")
    #expect(fake.members(of: created.id) == [ann])
  }
}
