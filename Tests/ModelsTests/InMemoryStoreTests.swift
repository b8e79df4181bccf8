import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("InMemoryStore", .tags(.models), .courier(timeBudget: .seconds(5)))
@MainActor
struct InMemoryStoreTests {
  let make = ModelFactory()

  /// `count` saves of `user` renamed each time, as a UI save makes them, with a change-log
  /// record and metadata that number them.
  func renames(of user: User, count: Int) throws -> [StoreSave] {
    let stack = InlineModelStack(Tables([user]))
    return try (1...count).map { index in
      try stack.ui.update(User.self, id: user.id) { $0.name = "Ann \(index)" }
      var record = PendingChange<User>()
      record.keys = [.name]
      record.original = user
      var records = ChangeLogRecords()
      records.set(record, for: user.id, of: User.self)
      return StoreSave(
        changes: try stack.ui.save(), changeLog: records,
        metadata: SyncMetadata(lastNotificationID: UUID(UInt64(index))))
    }
  }

  @Test(
    "What load returns holds every commit, in order, however many wait to be applied",
    arguments: [
      1, 2, InMemoryStore.pendingLimit - 1, InMemoryStore.pendingLimit,
      InMemoryStore.pendingLimit + 1, 2 * InMemoryStore.pendingLimit + 3,
    ])
  func loadHoldsEveryCommit(count: Int) throws {
    // given
    let ann = make.user(name: "Ann")
    let store = InMemoryStore(Tables([ann]))
    let saves = try renames(of: ann, count: count)

    // when
    for save in saves { store.commit(save) }
    let loaded = store.load()

    // then
    var expected = StoredState(tables: Tables([ann]))
    for save in saves { expected.apply(save) }
    #expect(loaded == expected)
    #expect(loaded.tables.object(User.self, id: ann.id)?.name == "Ann \(count)")
    #expect(loaded.metadata.lastNotificationID == UUID(UInt64(count)))
  }

  @Test("Commits made after a load are applied by the next load, on top of the first")
  func commitsAfterLoad() throws {
    // given
    let ann = make.user(name: "Ann")
    let store = InMemoryStore(Tables([ann]))
    let saves = try renames(of: ann, count: 3)
    store.commit(saves[0])
    let first = store.load()

    // when
    store.commit(saves[2])
    let second = store.load()

    // then
    #expect(first.tables.object(User.self, id: ann.id)?.name == "Ann 1")
    #expect(second.tables.object(User.self, id: ann.id)?.name == "Ann 3")
    #expect(second.changeLog[User.self][ann.id]?.keys == [.name])
  }

  @Test(
    "The metadata of the last waiting commit that carried some stands when later ones carry none")
  func metadataOfEarlierCommitStands() throws {
    // given: two saves with metadata, then one without, as a UI save makes it
    let ann = make.user(name: "Ann")
    let store = InMemoryStore(Tables([ann]))
    let saves = try renames(of: ann, count: 3)
    let last = StoreSave(changes: saves[2].changes, changeLog: saves[2].changeLog)

    // when
    for save in [saves[0], saves[1], last] { store.commit(save) }
    let loaded = store.load()

    // then
    #expect(loaded.metadata.lastNotificationID == UUID(2))
    #expect(loaded.tables.object(User.self, id: ann.id)?.name == "Ann 3")
  }
}
