import Foundation
import Models
import ModelsTestSupport
import Seams
import TestSupport
import Testing

@Suite("ModelStack", .tags(.models), .courier(timeBudget: .seconds(5)))
@MainActor
struct ModelStackTests {
  let make = ModelFactory()

  @Suite("Merging")
  @MainActor
  struct Merging {
    let make = ModelFactory()

    @Test("A UI save is merged into the sync context with the keys it changed")
    func uiToSync() async throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Anna" }

      // when
      let merged = try await expectNextMerge(into: stack.sync) { try stack.ui.context.save() }

      // then
      #expect(merged?[User.self].changedKeys(of: user.id) == [.name])
      let name = await stack.sync.perform { $0.object(User.self, id: user.id)?.name }
      #expect(name == "Anna")
    }

    @Test("A sync save is merged into the UI context")
    func syncToUI() async throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      var server = user
      server.accentID = 7

      // when
      let merged = try await expectNextMerge(into: stack.ui) {
        try await stack.sync.perform { [server] context throws(SaveError) in
          context.applyRemote(server)
          try context.save()
        }
      }

      // then
      #expect(merged?.origin == .sync)
      #expect(stack.ui.context.object(User.self, id: user.id)?.accentID == 7)
    }

    @Test("An object inserted in one context and deleted in the other ends deleted in both")
    func insertThenDelete() async throws {
      // given
      let stack = ModelStack.forTesting()
      let user = make.user()
      try stack.ui.context.insert(user)
      try stack.ui.context.save()
      await expectSettled(stack.tracker)

      // when
      try await stack.sync.perform { context throws(any Error) in
        context.applyRemoteDeletion(User.self, id: user.id)
        try context.save()
      }
      await expectSettled(stack.tracker)

      // then
      #expect(stack.ui.context.object(User.self, id: user.id) == nil)
      #expect(try stack.store.load().tables.count(of: User.self) == 0)
    }

    @Test("Edits of different keys on both contexts at once both survive, everywhere")
    func concurrentEditsOfDifferentKeys() async throws {
      // given
      let user = make.user(name: "Ann", accentID: 1)
      let stack = ModelStack.forTesting([user])
      var server = user
      server.accentID = 9

      // when
      async let remote: Void = stack.sync.perform { [server] context throws(SaveError) in
        context.applyRemote(server)
        try context.save()
      }
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Anna" }
      try stack.ui.context.save()
      try await remote
      await expectSettled(stack.tracker)

      // then
      let expected = User(id: user.id, name: "Anna", accentID: 9)
      #expect(stack.ui.context.object(User.self, id: user.id) == expected)
      #expect(await stack.sync.perform { $0.object(User.self, id: user.id) } == expected)
      #expect(try stack.store.load().tables.object(User.self, id: user.id) == expected)
    }

    // Its ten yields and the merges it waits for each queue behind every test the suite starts
    // at once: on two cores it has used 4.5 s of a 5 s budget.
    @Test(
      "Many saves from both sides converge on the store's state in both contexts",
      .timeBudget(.seconds(15)))
    func convergence() async throws {
      // given
      let users = (0..<20).map { make.user(name: "User \($0)") }
      let stack = ModelStack.forTesting(users)

      // when
      async let remote: Void = stack.sync.perform { context throws(SaveError) in
        for (index, user) in users.enumerated() {
          var server = user
          server.name = "Server \(index)"
          server.accentID = index
          context.applyRemote(server)
          try context.save()
        }
      }
      for user in users.prefix(10) {
        try stack.ui.context.update(User.self, id: user.id) { $0.name = "Local" }
        try stack.ui.context.save()
        await Task.yield()
      }
      try await remote
      await expectSettled(stack.tracker)

      // then
      let stored = try stack.store.load().tables.table(User.self).rows
      #expect(
        stack.ui.context.objects(User.self)
          == stored.values.sorted { $0.id.uuidString < $1.id.uuidString })
      #expect(
        await stack.sync.perform { $0.objects(User.self) } == stack.ui.context.objects(User.self))
      #expect(
        stored.values.allSatisfy { $0.accentID != 1 || $0.name == "Server 1" || $0.name == "Local" }
      )
    }

    @Test("Every merge is enrolled in the work tracker, so the stack is idle only once merged")
    func quiescence() async throws {
      // given
      let stack = ModelStack.forTesting()
      let jobsDuringMerge = Recorder<[String]>()
      let tracker = stack.tracker
      stack.sync.observeChanges { change in
        if change.kind == .merged { jobsDuringMerge.append(tracker.outstandingJobs.map(\.label)) }
      }
      try stack.ui.context.insert(make.user())

      // when
      try stack.ui.context.save()
      await expectSettled(stack.tracker)

      // then
      #expect(jobsDuringMerge.elements == [["merge a UI save into the sync context"]])
      #expect(await stack.sync.perform { $0.count(of: User.self) } == 1)
    }

    @Test("Stacks made for different tests share nothing")
    func isolation() throws {
      // given
      let first = ModelStack.forTesting()
      let second = ModelStack.forTesting()

      // when
      try first.ui.context.insert(make.user())
      try first.ui.context.save()

      // then
      #expect(try second.store.load().tables.totalCount == 0)
      #expect(second.ui.context.count(of: User.self) == 0)
    }
  }

  @Suite("Change streams")
  @MainActor
  struct ChangeStreams {
    @Test(
      "A context's stream of changes ends once its stack is gone", arguments: ContextRole.allCases)
    func endsWithTheStack(role: ContextRole) async throws {
      // given
      var stack: ModelStack? = ModelStack.inMemory()
      let changes = try Self.changes(of: role, in: #require(stack))

      // when
      stack = nil

      // then
      let ended = await firstResult(within: TimeoutScale.scaled(.seconds(2))) { () async -> Bool? in
        for await _ in changes {}
        return true
      }
      #expect(ended == true)
    }

    /// The stream of changes of the context `role` of `stack`.
    static func changes(of role: ContextRole, in stack: ModelStack) -> AsyncStream<ContextChange> {
      switch role {
      case .ui: stack.ui.changes()
      case .sync: stack.sync.changes()
      }
    }
  }

  @Suite("Conflict policy")
  @MainActor
  struct ConflictPolicy {
    let make = ModelFactory()

    @Test("An unsaved UI edit wins over a sync save of the same key, and then reaches the store")
    func unsavedUIEditWins() async throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Local" }
      var server = user
      server.name = "Server"
      server.accentID = 5

      // when
      try await expectNextMerge(into: stack.ui) {
        try await stack.sync.perform { [server] context throws(SaveError) in
          context.applyRemote(server)
          try context.save()
        }
      }

      // then
      #expect(stack.ui.context.object(User.self, id: user.id)?.name == "Local")
      #expect(stack.ui.context.object(User.self, id: user.id)?.accentID == 5)
      let changes = try stack.ui.context.save()
      #expect(changes[User.self].changedKeys(of: user.id) == [.name])
      #expect(try stack.store.load().tables.object(User.self, id: user.id)?.name == "Local")
    }

    @Test("A UI save wins over the sync context's unsaved server value of the same key")
    func uiSaveWinsInSync() async throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      var server = user
      server.name = "Server"
      await stack.sync.perform { [server] context in context.applyRemote(server) }

      // when
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Local" }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)

      // then
      let (name, dirty) = await stack.sync.perform {
        ($0.object(User.self, id: user.id)?.name, $0.localChanges(of: User.self).keys(of: user.id))
      }
      #expect(name == "Local")
      #expect(dirty == [.name])
    }

    /// A group of Ann and Bob whose sync context heard Cy join and has not saved it yet, as when
    /// the store refused the save of the news.
    func groupWithUnsavedJoin() async -> (
      stack: ModelStack, group: Conversation, ann: User, bob: User, cy: User
    ) {
      let ann = make.user(name: "Ann")
      let bob = make.user(name: "Bob")
      let cy = make.user(name: "Cy")
      let group = make.conversation(creator: ann, participants: [bob])
      let stack = ModelStack.forTesting([ann, bob, cy, group])
      var heard = group
      heard.participantIDs.insert(cy.id)
      await stack.sync.perform { [heard] context in context.applyRemote(heard) }
      return (stack, group, ann, bob, cy)
    }

    @Test(
      "A UI save of a group's members wins over the sync context's unsaved members only at the members the user changed"
    )
    func uiMemberSaveMergesInSync() async throws {
      // given: the sync context heard Cy join the group, and could not save it yet
      let (stack, group, ann, bob, cy) = await groupWithUnsavedJoin()

      // when: the user, who has not seen Cy, takes Bob out
      try stack.ui.context.update(Conversation.self, id: group.id) {
        $0.participantIDs.remove(bob.id)
      }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)

      // then
      let members = await stack.sync.perform {
        $0.object(Conversation.self, id: group.id)?.participantIDs
      }
      #expect(members == [ann.id, cy.id])
    }

    @Test(
      "A change the user saves over values the sync context heard and had not saved yet is measured from what it heard"
    )
    func changeMeasuredFromUnsavedNews() async throws {
      // given: the sync context heard Cy join the group and could not save it yet; the user
      // renamed the group meanwhile, and then saw Cy once the news were saved
      let (stack, group, ann, bob, cy) = await groupWithUnsavedJoin()
      try stack.ui.context.update(Conversation.self, id: group.id) { $0.name = "Lunch" }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)
      _ = try await stack.sync.perform { context throws(SaveError) in try context.save() }
      await expectSettled(stack.tracker)

      // when: the user takes Cy out
      try stack.ui.context.update(Conversation.self, id: group.id) {
        $0.participantIDs.remove(cy.id)
      }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)

      // then: the removal is a change of the user's, to send
      let changes = await stack.sync.perform { $0.localChanges(of: Conversation.self) }
      #expect(changes.keys(of: group.id) == [.name, .participantIDs])
      #expect(changes.originals[group.id]?.participantIDs == [ann.id, bob.id, cy.id])
    }

    @Test("A server value does not overwrite a local change that has not been pushed")
    func localChangeWinsUntilPushed() async throws {
      // given
      let user = make.user(name: "Ann", accentID: 1)
      let stack = ModelStack.forTesting([user])
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Local" }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)
      var server = user
      server.name = "Server"
      server.accentID = 3

      // when
      let merged = try await stack.sync.perform { [server] context throws(SaveError) in
        context.applyRemote(server)
        return try context.save()
      }

      // then
      #expect(merged[User.self].changedKeys(of: user.id) == [.accentID])
      #expect(try stack.store.load().tables.object(User.self, id: user.id)?.name == "Local")
    }

    @Test("Once pushed, the next server value for the key is taken")
    func serverValueAfterPush() async throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Local" }
      try stack.ui.context.save()
      await expectSettled(stack.tracker)
      var server = user
      server.name = "Server"

      // when
      let name = try await stack.sync.perform { [server] context throws(SaveError) in
        context.clearLocalChanges(User.self, id: user.id, keys: [.name])
        context.applyRemote(server)
        try context.save()
        return context.object(User.self, id: user.id)?.name
      }

      // then
      #expect(name == "Server")
    }

    @Test(
      "An unsaved edit of a group's members keeps the user's own additions and removals, and takes the other members the server changed"
    )
    func setValuedEditMergesByElement() async throws {
      // given: the UI adds Cy to a group of Ann and Bob, unsaved; meanwhile the server removes
      // Bob and adds Dan
      let me = make.selfUser()
      let (ann, bob, cy, dan) = (make.user(), make.user(), make.user(), make.user())
      var group = make.conversation(name: "G", creator: me)
      group.participantIDs = [me.id, ann.id, bob.id]
      let stack = ModelStack.forTesting([me, ann, bob, cy, dan, group])
      try stack.ui.context.update(Conversation.self, id: group.id) {
        $0.participantIDs.insert(cy.id)
      }
      var server = group
      server.participantIDs = [me.id, ann.id, dan.id]

      // when
      try await expectNextMerge(into: stack.ui) {
        try await stack.sync.perform { [server] context throws(SaveError) in
          context.applyRemote(server)
          try context.save()
        }
      }

      // then
      #expect(
        stack.ui.context.object(Conversation.self, id: group.id)?.participantIDs
          == [me.id, ann.id, cy.id, dan.id])
    }

    @Test("A deletion wins over unsaved edits of the deleted object")
    func deletionWins() async throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      try stack.ui.context.update(User.self, id: user.id) { $0.name = "Local" }

      // when
      try await expectNextMerge(into: stack.ui) {
        try await stack.sync.perform { context throws(SaveError) in
          context.applyRemoteDeletion(User.self, id: user.id)
          try context.save()
        }
      }

      // then
      #expect(stack.ui.context.object(User.self, id: user.id) == nil)
      #expect(!stack.ui.context.hasChanges)
    }

    @Test("Server values bypass the status-transition rule, which guards local edits only")
    func serverStatusBypassesTransitions() async throws {
      // given
      let me = make.selfUser()
      let other = make.user()
      let connection = make.connection(from: me, to: other, status: .cancelled)
      let stack = ModelStack.forTesting([me, other, connection])
      var server = connection
      server.status = .invalid

      // when
      let changes = try await expectNextSave(of: stack.sync) {
        try await stack.sync.perform { [server] context throws(SaveError) in
          context.applyRemote(server)
          try context.save()
        }
      }

      // then
      #expect(changes?[Connection.self].changedKeys(of: other.id) == [.status])
    }
  }
}

/// The outstanding jobs seen at each merge.
