import Foundation
import Models
import ModelsTestSupport
import Seams
import TestSupport
import Testing

extension ModelStackTests {
  @Suite("What a restart finds in the store")
  @MainActor
  struct Restart {
    let make = ModelFactory()

    @Test("A UI save's pending change is in the store in the same commit, before any merge")
    func uiSaveWritesItsRecord() throws {
      // given
      let me = make.selfUser(name: "Me")
      let store = InMemoryStore(Tables([me]))
      let stack = try ModelStack(store: store, tracker: WorkTracker())
      try stack.ui.context.update(User.self, id: me.id) { $0.name = "Ada" }

      // when
      try stack.ui.context.save()

      // then
      let record = store.load().changeLog[User.self][me.id]
      #expect(record?.keys == [.name])
      #expect(record?.original?.name == "Me")
    }

    @Test("A stack reopened on the store has the pending changes, failures and metadata")
    func reopenedStackResumes() async throws {
      // given: an insert pending, an update refused for good, and a notification applied
      let me = make.selfUser(name: "Me")
      let group = make.conversation(creator: me)
      let store = InMemoryStore(Tables([me]))
      let first = try ModelStack(store: store, tracker: WorkTracker())
      try first.ui.context.insert(group)
      try first.ui.context.update(User.self, id: me.id) { $0.name = "Ada" }
      try first.ui.context.save()
      await expectSettled(first.tracker)
      let refusal = PushFailure(reason: "too long", status: 400, label: "bad-name")
      try await first.sync.perform { context throws(SaveError) in
        context.markPushFailed(User.self, id: me.id, refusal)
        context.syncMetadata.lastNotificationID = UUID(7)
        try context.save()
      }

      // when
      let second = try ModelStack(store: store, tracker: WorkTracker())

      // then
      let (groups, users, metadata) = await second.sync.perform { context in
        (
          context.localChanges(of: Conversation.self), context.localChanges(of: User.self),
          context.syncMetadata
        )
      }
      #expect(groups.inserted == [group.id])
      #expect(users.keys(of: me.id) == [.name])
      #expect(users.failure(of: me.id) == refusal)
      #expect(users.originals[me.id]?.name == "Me")
      #expect(metadata.lastNotificationID == UUID(7))
      #expect(second.ui.context.object(Conversation.self, id: group.id) == group)
    }

    @Test("A change settled and saved by the sync context is gone from the store")
    func settledRecordIsRemoved() async throws {
      // given
      let me = make.selfUser(name: "Me")
      let store = InMemoryStore(Tables([me]))
      let stack = try ModelStack(store: store, tracker: WorkTracker())
      try stack.ui.context.update(User.self, id: me.id) { $0.name = "Ada" }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)

      // when: only the change log changes in this save
      try await stack.sync.perform { context throws(SaveError) in
        context.clearLocalChanges(User.self, id: me.id, keys: [.name])
        try context.save()
      }

      // then
      #expect(store.load().changeLog.isEmpty)
    }
  }
}
