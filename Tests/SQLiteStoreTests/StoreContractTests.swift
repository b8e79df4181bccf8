import Foundation
import Models
import ModelsTestSupport
import SQLiteStore
import Seams
import TestSupport
import Testing

/// Shared examples: every store behaviour, over the in-memory store and the SQLite store.
///
/// The stacks are inline, and the work runs on a dedicated thread: saving thousands of objects
/// in a debug build takes a while, and must not hold the main actor or the cooperative pool
/// that other tests' time budgets need.
@Suite("Store contract", .tags(.models, .integration), .courier(timeBudget: .seconds(20)))
struct StoreContractTests {
  static let make = ModelFactory()

  @Test(
    "What a save commits is loaded back, objects and pending changes", arguments: StoreKind.allCases
  )
  func loadAfterCommit(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let me = Self.make.selfUser(name: "Me")
    let group = Self.make.conversation(creator: me)

    // when
    let loaded = try await DedicatedThread.perform {
      let stack = try InlineModelStack(store: store)
      try stack.ui.insert(me)
      try stack.ui.insert(group)
      try stack.ui.save()
      return try reopen().load()
    }

    // then
    #expect(loaded.tables == Tables([me, group]))
    #expect(loaded.changeLog[Conversation.self][group.id]?.isInserted == true)
    #expect(loaded.changeLog[User.self][me.id]?.isInserted == true)
  }

  @Test(
    "Keys saved by two contexts both reach the store; a deletion removes",
    arguments: StoreKind.allCases)
  func perKeyUpdatesAndDeletes(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let ann = Self.make.user(name: "Ann", accentID: 1)
    let bob = Self.make.user(name: "Bob")

    // when
    let loaded = try await DedicatedThread.perform {
      let stack = try InlineModelStack(store: store)
      stack.sync.applyRemote(ann)
      stack.sync.applyRemote(bob)
      try stack.sync.save()
      try stack.ui.update(User.self, id: ann.id) { $0.name = "Anna" }
      var remote = ann
      remote.accentID = 7
      stack.sync.applyRemote(remote)
      stack.sync.applyRemoteDeletion(User.self, id: bob.id)
      try stack.ui.save()
      try stack.sync.save()
      return try reopen().load()
    }

    // then
    #expect(
      loaded.tables.object(User.self, id: ann.id) == User(id: ann.id, name: "Anna", accentID: 7))
    #expect(loaded.tables.object(User.self, id: bob.id) == nil)
  }

  @Test(
    "An object the server drops and brings back in one save reads the same in the store and both contexts",
    arguments: StoreKind.allCases)
  func droppedAndBroughtBack(_ kind: StoreKind) async throws {
    // given: a message as written here, then the server's copy of it with its own time, as news
    // that drop its group and bring it back do
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let me = Self.make.selfUser()
    let group = Self.make.conversation(creator: me)
    let written = Self.make.message(in: group, from: me, deliveryState: .sent)
    let fromServer = Message(
      nonce: written.nonce, conversationID: group.id, senderID: me.id, text: written.text,
      localTime: written.localTime.addingTimeInterval(13),
      serverTime: written.localTime.addingTimeInterval(13), deliveryState: .sent)

    // when
    let (loaded, sync, ui) = try await DedicatedThread.perform {
      let stack = try InlineModelStack(store: store)
      for object in [me, group, written] as [any ModelObject] { stack.sync.applyRemote(object) }
      try stack.sync.save()
      stack.sync.applyRemoteDeletion(Message.self, id: written.id)
      stack.sync.applyRemote(fromServer)
      try stack.sync.save()
      return (
        try reopen().load().tables.object(Message.self, id: written.id),
        stack.sync.object(Message.self, id: written.id),
        stack.ui.object(Message.self, id: written.id)
      )
    }

    // then: one message, the same everywhere
    #expect(loaded != nil)
    #expect(sync == loaded)
    #expect(ui == loaded)
  }

  @Test("The same save committed twice leaves the store as once", arguments: StoreKind.allCases)
  func idempotentRecommit(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let me = Self.make.selfUser(name: "Me")

    // when
    let (once, twice) = try await DedicatedThread.perform {
      let stack = try InlineModelStack(store: store)
      try stack.ui.insert(me)
      let changes = try stack.ui.save()
      var record = PendingChange<User>()
      record.isInserted = true
      var records = ChangeLogRecords()
      records.set(record, for: me.id, of: User.self)
      let save = StoreSave(changes: changes, changeLog: records)
      let once = try reopen().load()
      try store.commit(save)
      try store.commit(save)
      return (once, try reopen().load())
    }

    // then
    #expect(twice == once)
  }

  @Test("Ten thousand objects in one save are all there after it", arguments: StoreKind.allCases)
  func largeBatch(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let users = (0..<10_000).map { Self.make.user(name: "User \($0)") }

    // when
    let loaded = try await DedicatedThread.perform {
      let stack = try InlineModelStack(store: store)
      for user in users { try stack.ui.insert(user) }
      try stack.ui.save()
      return try reopen().load()
    }

    // then
    #expect(loaded.tables.count(of: User.self) == 10_000)
    #expect(loaded.changeLog[User.self].count == 10_000)
  }

  @Test(
    "A reader while a large save commits sees all of it or none of it",
    arguments: StoreKind.allCases)
  func concurrentReader(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, _) = try kind.make(in: directory)
    let users = (0..<5_000).map { Self.make.user(name: "User \($0)") }
    let reading = AsyncExpectation("the reader started")

    // when
    async let counts = DedicatedThread.perform { () throws -> [Int] in
      reading.fulfill()
      var counts: [Int] = []
      for _ in 0..<20 { counts.append(try store.load().tables.count(of: User.self)) }
      return counts
    }
    await reading.fulfillment(within: .seconds(5))
    try await DedicatedThread.perform {
      let stack = try InlineModelStack(store: store)
      for user in users { try stack.ui.insert(user) }
      try stack.ui.save()
    }

    // then
    #expect(try await counts.allSatisfy { $0 == 0 || $0 == 5_000 })
  }

  @Test("Pending changes, failures and metadata survive a restart", arguments: StoreKind.allCases)
  func changeLogRoundTrip(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let me = Self.make.selfUser(name: "Me")
    let refusal = PushFailure(reason: "too long", status: 400, label: "bad-name")

    // when
    let (changes, metadata) = try await DedicatedThread.perform {
      let first = try InlineModelStack(store: store)
      first.sync.applyRemote(me)
      try first.sync.save()
      try first.ui.update(User.self, id: me.id) { $0.name = "Ada" }
      try first.ui.save()
      first.sync.markPushFailed(User.self, id: me.id, refusal)
      first.sync.recordUnconfirmed(User(id: me.id, isSelf: true, name: "Maybe"), keys: [.name])
      first.sync.syncMetadata.lastNotificationID = UUID(9)
      try first.sync.save()
      let second = try InlineModelStack(store: try reopen())
      return (second.sync.localChanges(of: User.self), second.sync.syncMetadata)
    }

    // then
    #expect(changes.keys(of: me.id) == [.name])
    #expect(changes.originals[me.id] == me)
    #expect(changes.failure(of: me.id) == refusal)
    #expect(changes.unconfirmed[me.id]?.map(\.value.name) == ["Maybe"])
    #expect(metadata.lastNotificationID == UUID(9))
  }

  @Test(
    "Write-ahead records keep their marks across a restart, and new marks go above them",
    arguments: StoreKind.allCases)
  func writeAheadMarksRoundTrip(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)
    let me = Self.make.selfUser(name: "Me")
    let renamed = User(id: me.id, isSelf: true, name: "Ada")

    // when
    let (written, loaded, next) = try await DedicatedThread.perform {
      let first = try InlineModelStack(store: store)
      first.sync.applyRemote(me)
      try first.sync.save()
      let written = first.sync.recordInFlight(renamed, keys: [.name])
      try first.sync.save()
      let second = try InlineModelStack(store: try reopen())
      let loaded = second.sync.localChanges(of: User.self).unconfirmed[me.id] ?? []
      return (written, loaded, second.sync.recordInFlight(renamed, keys: [.name]))
    }

    // then
    #expect(loaded == [UnconfirmedValue(keys: [.name], value: renamed, mark: written)])
    #expect(next.serial > written.serial)
  }
}
