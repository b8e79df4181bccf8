import ConversationParsing
import FakeBackend
import Foundation
import Models
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
        await Quiescence.expectIdle(stack.tracker)
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
      #expect(running.store.load().tables.object(Conversation.self, id: running.group)?.name == "Dinner")
    }
  }
}

/// An in-memory store that refuses as many saves as it is told to, then takes them again.
final class RefusingStore: ModelStore {
  /// Why the store refused a save.
  struct Refusal: Error, CustomStringConvertible {
    var description: String { "the disk is full" }
  }

  private let base = InMemoryStore()
  private let refusalsLeft = Locked(0)

  /// Makes the store refuse its next `count` saves.
  func refuseNextSaves(_ count: Int) {
    refusalsLeft.withLock { $0 = count }
  }

  func load() -> StoredState { base.load() }

  func commit(_ save: StoreSave) throws {
    let refuses = refusalsLeft.withLock { left in
      defer { left = max(left - 1, 0) }
      return left > 0
    }
    if refuses { throw Refusal() }
    base.commit(save)
  }
}
