import Foundation
import Models
import ModelsTestSupport
import Seams
import TestSupport
import Testing

@Suite("ModelContext", .tags(.models), .courier(timeBudget: .seconds(5)))
@MainActor
struct ModelContextTests {
  let make = ModelFactory()

  @Suite("Editing")
  @MainActor
  struct Editing {
    let make = ModelFactory()

    @Test("Reads see unsaved inserts, updates and deletions")
    func readsSeeUnsavedEdits() throws {
      // given
      let kept = make.user(name: "Kept")
      let gone = make.user(name: "Gone")
      let context = ModelStack.forTesting([kept, gone]).ui.context
      let added = make.user(name: "Added")

      // when
      try context.insert(added)
      try context.update(User.self, id: kept.id) { $0.name = "Renamed" }
      try context.delete(User.self, id: gone.id)

      // then
      #expect(context.objects(User.self).map(\.name).sorted() == ["Added", "Renamed"])
      #expect(context.count(of: User.self) == 2)
      #expect(context.object(User.self, id: gone.id) == nil)
      #expect(context.hasChanges)
    }

    @Test("Objects by id see unsaved edits, and are the saved objects when there are none")
    func objectsByIDSeeUnsavedEdits() throws {
      // given
      let kept = make.user(name: "Kept")
      let gone = make.user(name: "Gone")
      let context = ModelStack.forTesting([kept, gone]).ui.context
      let saved = context.objectsByID(User.self)
      let added = make.user(name: "Added")

      // when
      try context.insert(added)
      try context.update(User.self, id: kept.id) { $0.name = "Renamed" }
      try context.delete(User.self, id: gone.id)

      // then
      #expect(saved == [kept.id: kept, gone.id: gone])
      #expect(
        context.objectsByID(User.self).mapValues(\.name) == [kept.id: "Renamed", added.id: "Added"])
      #expect(context.objectsByID(Message.self).isEmpty)
    }

    @Test("Inserting an id that exists is refused with the object named")
    func insertTwice() throws {
      // given
      let user = make.user()
      let context = ModelStack.forTesting([user]).ui.context

      // when
      let error = #expect(throws: ContextError.self) { try context.insert(user) }

      // then
      #expect(error == .alreadyExists(ObjectReference(.user, user.id)))
      #expect(error?.description == "User \(user.id.uuidString.lowercased()) exists already")
    }

    @Test("Updating or deleting a missing object is refused with the object named")
    func missingObject() {
      // given
      let context = ModelStack.forTesting().ui.context
      let id = make.uuids.next()

      // when
      let updateError = #expect(throws: ContextError.self) {
        try context.update(Conversation.self, id: id) { $0.name = "x" }
      }
      let deleteError = #expect(throws: ContextError.self) {
        try context.delete(Conversation.self, id: id)
      }

      // then
      #expect(updateError == .notFound(ObjectReference(.conversation, id)))
      #expect(deleteError == .notFound(ObjectReference(.conversation, id)))
    }

    @Test("Rollback drops every unsaved edit")
    func rollback() throws {
      // given
      let user = make.user(name: "Ann")
      let context = ModelStack.forTesting([user]).ui.context
      try context.update(User.self, id: user.id) { $0.name = "Bea" }
      try context.insert(make.user())

      // when
      context.rollback()

      // then
      #expect(context.objects(User.self) == [user])
      #expect(!context.hasChanges)
    }

    @Test("New ids come from the test's deterministic UUID source")
    func deterministicIDs() {
      // given
      let context = ModelStack.forTesting().ui.context
      let replay = UUIDSource.seeded(UUIDSource.current.seed ?? 0)

      // when
      let ids = [context.makeID(), context.makeID()]

      // then
      #expect(UUIDSource.current.seed != nil)
      #expect(ids == [replay.next(), replay.next()])
    }
  }

  @Suite("Saving")
  @MainActor
  struct Saving {
    let make = ModelFactory()

    @Test(
      "A blank name saved before, as the backend may send it, does not stop a change of another key",
      arguments: [true, false])
    func blankNameKeptAcrossOtherChange(isGroup: Bool) throws {
      // given
      var me = make.user(name: "Me")
      var group = make.conversation(creator: me)
      if isGroup { group.name = " " } else { me.name = " " }
      let bob = make.user(name: "Bob")
      let context = ModelStack.forTesting([me, group, bob]).ui.context
      if isGroup {
        try context.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob.id) }
      } else {
        try context.update(User.self, id: me.id) { $0.accentID += 1 }
      }

      // when
      let changes = try context.save()

      // then
      #expect(changes.count == 1)
    }

    @Test(
      "A change from the server to a new object keeps its insert pending, unchecked by the rules"
    )
    func remoteChangeOfNewObject() async throws {
      // given: a group created here, merged into the sync context, not sent yet
      let me = make.user(name: "Me")
      let stack = ModelStack.forTesting([me])
      let group = make.conversation(name: "Mine", creator: me)
      try stack.ui.context.insert(group)
      try stack.ui.context.save()

      // when
      let (name, pending) = try await stack.sync.perform { context throws in
        try context.applyRemoteChange(Conversation.self, id: group.id) { $0.name = "  " }
        try context.save()
        return (
          context.object(Conversation.self, id: group.id)?.name,
          context.localChanges(of: Conversation.self).inserted
        )
      }

      // then
      #expect(name == "  ")
      #expect(pending == [group.id])
    }

    @Test("A change from the server to an object the context does not have is refused")
    func remoteChangeOfMissingObject() async {
      // given
      let stack = ModelStack.forTesting()
      let id = UUID()

      // when
      let error = await stack.sync.perform { context in
        #expect(throws: ContextError.self) {
          try context.applyRemoteChange(Conversation.self, id: id) { $0.name = "x" }
        }
      }

      // then
      #expect(error == .notFound(ObjectReference(.conversation, id)))
    }

    @Test("A rollback puts the sync metadata back as it was last saved")
    func rollbackRestoresMetadata() async throws {
      // given
      let stack = ModelStack.forTesting()
      let saved = SyncMetadata(lastNotificationID: UUID())

      // when
      let metadata = try await stack.sync.perform { context throws(SaveError) in
        context.syncMetadata = saved
        try context.save()
        context.syncMetadata.lastNotificationID = UUID()
        context.syncMetadata.usersToFetch = [UUID()]
        context.rollback()
        return context.syncMetadata
      }

      // then
      #expect(metadata == saved)
      #expect(try stack.store.load().metadata == saved)
    }

    @Test(
      "A save the store refused keeps the edits and the sync metadata, and the next save writes them"
    )
    func refusedSaveKeptForNext() async throws {
      // given: news rename Ann and move the cursor; the store refuses the save
      let ann = make.user(name: "Ann")
      let store = RefusingStore([ann])
      let stack = try ModelStack(store: store)
      store.refuseNextSaves(1)
      let cursor = UUID()
      let refused = await stack.sync.perform { context in
        var renamed = ann
        renamed.name = "Anna"
        context.applyRemote(renamed)
        context.syncMetadata.lastNotificationID = cursor
        return #expect(throws: SaveError.self) { try context.save() }
      }
      let whileRefused = store.load()

      // when
      let kept = try await stack.sync.perform { context throws(SaveError) in
        let kept = (context.object(User.self, id: ann.id)?.name, context.syncMetadata)
        try context.save()
        return kept
      }

      // then
      #expect(refused?.failures.isEmpty == true)
      #expect(whileRefused == StoredState(tables: Tables([ann])))
      #expect(kept.0 == "Anna")
      #expect(kept.1 == SyncMetadata(lastNotificationID: cursor))
      #expect(store.load().tables.object(User.self, id: ann.id)?.name == "Anna")
      #expect(store.load().metadata == SyncMetadata(lastNotificationID: cursor))
    }

    @Test(
      "A deletion in the sync context that a refused save kept takes along what the UI saved meanwhile pointing at it, and the next save writes both"
    )
    func keptDeletionTakesLateReferrers() async throws {
      // given: the sync context drops a group, and the store refuses that save; the UI, which
      // still sees the group, writes a message in it, and that save goes through
      let me = make.user(name: "Me")
      let group = make.conversation(creator: me)
      let store = RefusingStore([me, group])
      let stack = try ModelStack(store: store)
      store.refuseNextSaves(1)
      await stack.sync.perform { context in
        context.discardLocally(Conversation.self, id: group.id)
        #expect(throws: SaveError.self) { try context.save() }
      }
      let message = make.message(in: group, from: me)
      try stack.ui.context.insert(message)
      try stack.ui.context.save()

      // when
      let saved = await stack.sync.perform { context -> Result<ChangeSet, SaveError> in
        do throws(SaveError) { return .success(try context.save()) } catch {
          return .failure(error)
        }
      }

      // then
      let changes = try saved.get()
      #expect(changes[Conversation.self].deleted == [group.id])
      #expect(changes[Message.self].deleted == [message.id])
      let left = await stack.sync.perform { context in
        (
          context.object(Conversation.self, id: group.id),
          context.object(Message.self, id: message.id),
          context.localChanges(of: Message.self).inserted
        )
      }
      #expect(left.0 == nil)
      #expect(left.1 == nil)
      #expect(left.2.isEmpty)
      #expect(store.load().tables.object(Message.self, id: message.id) == nil)
      #expect(store.load().tables.object(Conversation.self, id: group.id) == nil)
    }

    @Test("A save reports inserts, deletions and exactly the keys that changed")
    func changeSet() throws {
      // given
      let user = make.user(name: "Ann", handle: "ann")
      let gone = make.user()
      let context = ModelStack.forTesting([user, gone]).ui.context
      let added = make.user()
      try context.insert(added)
      try context.update(User.self, id: user.id) {
        $0.name = "Anna"
        $0.accentID += 1
      }
      try context.delete(User.self, id: gone.id)

      // when
      let changes = try context.save()

      // then
      #expect(changes.origin == .ui)
      #expect(changes[User.self].inserted == [added.id: added])
      #expect(changes[User.self].changedKeys(of: user.id) == [.name, .accentID])
      #expect(changes[User.self].deleted == [gone.id])
      #expect(changes.description == "ui save: User +1 ~1 -1")
      #expect(!context.hasChanges)
    }

    @Test("An edit that restores the saved value is not reported as a change")
    func noOpEdit() throws {
      // given
      let user = make.user(name: "Ann")
      let context = ModelStack.forTesting([user]).ui.context
      try context.update(User.self, id: user.id) { $0.name = "Bea" }
      try context.update(User.self, id: user.id) { $0.name = "Ann" }

      // when
      let changes = try context.save()

      // then
      #expect(changes.isEmpty)
      #expect(changes.description == "ui save: nothing")
    }

    @Test(
      "A save that breaks a rule names the object and the rule",
      arguments: [
        RuleCase.blankUserName, .blankGroupName, .blankMessage, .messageWithoutConversation,
      ]
    )
    func ruleViolation(_ rule: RuleCase) throws {
      // given
      let make = ModelFactory()
      let me = make.selfUser()
      let group = make.conversation(creator: me)
      let context = ModelStack.forTesting([me, group]).ui.context
      let (object, expected) = try rule.apply(to: context, make: make, me: me, group: group)

      // when
      let error = #expect(throws: SaveError.self) { try context.save() }

      // then
      #expect(error?.failures == [ValidationFailure(object: object, rule: expected)])
      #expect(error?.description.contains(expected.description) == true)
    }

    @Test("A failed save rolls everything back: nothing is half-applied")
    func rollbackOnFailure() throws {
      // given
      let me = make.selfUser()
      let other = make.user(name: "Ann")
      let connection = make.connection(from: me, to: other, status: .cancelled)
      let stack = ModelStack.forTesting([me, other, connection])
      let context = stack.ui.context
      try context.update(User.self, id: other.id) { $0.name = "Anna" }
      try context.insert(make.user(name: "New"))
      try context.update(Connection.self, id: other.id) { $0.status = .sent }

      // when
      #expect(throws: SaveError.self) { try context.save() }

      // then
      #expect(context.objects(User.self).map(\.name).sorted() == ["Ann", "Me"])
      #expect(context.object(Connection.self, id: other.id) == connection)
      #expect(try stack.store.load().tables == Tables([me, other, connection]))
      #expect(!context.hasChanges)
    }

    @Test("Every broken rule of one save is reported, sorted by object")
    func allFailures() throws {
      // given
      let first = make.user()
      let second = make.user()
      let context = ModelStack.forTesting([first, second]).ui.context
      for user in [second, first] { try context.update(User.self, id: user.id) { $0.name = " " } }

      // when
      let error = #expect(throws: SaveError.self) { try context.save() }

      // then
      let expected = [first, second].map {
        ValidationFailure(object: ObjectReference(.user, $0.id), rule: .nameNotEmpty(.user))
      }.sorted { $0.object < $1.object }
      #expect(error?.failures == expected)
    }

    @Test("Deleting a conversation that still has messages is refused for each message")
    func deleteConversationWithMessages() throws {
      // given
      let me = make.selfUser()
      let group = make.conversation(creator: me)
      let message = make.message(in: group, from: me)
      let context = ModelStack.forTesting([me, group, message]).ui.context
      try context.delete(Conversation.self, id: group.id)

      // when
      let error = #expect(throws: SaveError.self) { try context.save() }

      // then
      #expect(
        error?.failures == [
          ValidationFailure(
            object: ObjectReference(.message, message.id),
            rule: .messageNeedsConversation(group.id))
        ])
    }

    @Test("A saved change reaches the store key by key")
    func storeCommit() throws {
      // given
      let user = make.user(name: "Ann")
      let stack = ModelStack.forTesting([user])
      try stack.ui.context.update(User.self, id: user.id) { $0.email = "ann@example.com" }

      // when
      try stack.ui.context.save()

      // then
      #expect(
        try stack.store.load().tables.object(User.self, id: user.id)?.email == "ann@example.com")
    }
  }

  @Suite("Relationships")
  @MainActor
  struct Relationships {
    let make = ModelFactory()

    @Test("A connection, its user and its conversation resolve from each end")
    func connectionBothWays() throws {
      // given
      let me = make.selfUser()
      let other = make.user()
      let conversation = make.conversation(kind: .connection, creator: me, participants: [other])
      let connection = make.connection(from: me, to: other, conversation: conversation)

      // when
      let context = ModelStack.forTesting([me, other, conversation, connection]).ui.context

      // then
      #expect(context.connection(of: other) == connection)
      #expect(context.user(of: connection) == other)
      #expect(context.conversation(of: connection) == conversation)
      #expect(context.connection(of: conversation) == connection)
      #expect(context.selfUser == me)
    }

    @Test(
      "The self user follows unsaved edits, a rollback, and saves merged from the other context")
    func selfUserFollowsChanges() throws {
      // given
      let me = make.selfUser(name: "Me")
      let stack = InlineModelStack(Tables([make.user(name: "Ann")]))
      var seen: [String?] = [stack.ui.selfUser?.name]

      // when
      try stack.ui.insert(me)
      seen.append(stack.ui.selfUser?.name)
      stack.ui.rollback()
      seen.append(stack.ui.selfUser?.name)
      stack.sync.applyRemote(me)
      try stack.sync.save()
      seen += [stack.ui.selfUser?.name, stack.sync.selfUser?.name]
      try stack.ui.update(User.self, id: me.id) { $0.name = "Renamed" }
      seen.append(stack.ui.selfUser?.name)
      try stack.ui.save()
      seen.append(stack.sync.selfUser?.name)

      // then
      #expect(seen == [nil, "Me", nil, "Me", "Me", "Renamed", "Renamed"])
    }

    @Test("A conversation's participants and a user's conversations resolve, unsaved ones too")
    func participantsBothWays() throws {
      // given
      let me = make.selfUser()
      let ann = make.user(name: "Ann")
      let bob = make.user(name: "Bob")
      let saved = make.conversation(creator: me, participants: [ann])
      let context = ModelStack.forTesting([me, ann, bob, saved]).ui.context
      let unsaved = make.conversation(creator: bob, participants: [ann])

      // when
      try context.insert(unsaved)

      // then
      #expect(context.participants(of: saved).map(\.name) == ["Ann", "Me"])
      #expect(
        Set(context.conversations(of: ann).map(\.id)) == [saved.id, unsaved.id])
      #expect(context.conversations(of: me).map(\.id) == [saved.id])
    }

    @Test("A conversation's messages come sent first by server time, then unsent by local time")
    func messagesInOrder() throws {
      // given
      let me = make.selfUser()
      let group = make.conversation(creator: me)
      var late = make.message(in: group, from: me, text: "late")
      late.serverTime = make.now.addingTimeInterval(100)
      var early = make.message(in: group, from: me, text: "early")
      early.serverTime = make.now.addingTimeInterval(50)
      let context = ModelStack.forTesting([me, group, late, early]).ui.context
      let unsent = make.message(in: group, from: me, text: "unsent")
      try context.insert(unsent)

      // when
      let messages = context.messages(in: group)

      // then
      #expect(messages.map(\.text) == ["early", "late", "unsent"])
      #expect(context.conversation(of: unsent) == group)
    }

    /// A page asked of five messages (m1 … m5 in display order, m5 not sent yet).
    struct PageCase: Sendable, CustomTestStringConvertible {
      let limit: Int
      let before: Int?
      let expected: [String]

      var testDescription: String { "\(limit) before \(before.map { "m\($0)" } ?? "the end")" }
    }

    @Test(
      "A page of messages is the latest few before a given one, in display order",
      arguments: [
        PageCase(limit: 2, before: nil, expected: ["m4", "m5"]),
        PageCase(limit: 2, before: 4, expected: ["m2", "m3"]),
        PageCase(limit: 10, before: 3, expected: ["m1", "m2"]),
        PageCase(limit: 3, before: 1, expected: []),
        PageCase(limit: 0, before: nil, expected: []),
        PageCase(limit: -1, before: nil, expected: []),
      ])
    func latestMessages(_ page: PageCase) throws {
      // given: four sent messages and one unsent, in another conversation's company
      let me = make.selfUser()
      let group = make.conversation(creator: me)
      let other = make.conversation(creator: me)
      var messages = (1...5).map { make.message(in: group, from: me, text: "m\($0)") }
      for index in 0..<4 { messages[index].serverTime = make.now.addingTimeInterval(Double(index)) }
      let elsewhere = make.message(in: other, from: me, text: "elsewhere")
      let context = ModelStack.forTesting([me, group, other, elsewhere] + messages).ui.context

      // when
      let shown = context.latestMessages(
        in: group, limit: page.limit, before: page.before.map { messages[$0 - 1] })

      // then
      #expect(shown.map(\.text) == page.expected)
    }

    @Test(
      "Every page of messages is the tail of the whole list before its message, for seeded conversations",
      arguments: 1...20 as ClosedRange<UInt64>)
    func latestMessagesProperty(seed: UInt64) throws {
      // given: up to 60 messages, some sent at random (sometimes equal) times, some unsent
      var random = SeededRandomNumberGenerator(seed: seed)
      let me = make.selfUser()
      let group = make.conversation(creator: me)
      let messages = (0..<Int.random(in: 0...60, using: &random)).map { index in
        var message = make.message(in: group, from: me, text: "m\(index)")
        if Bool.random(using: &random) {
          message.serverTime = make.now.addingTimeInterval(
            Double.random(in: 0...5, using: &random).rounded())
        }
        return message
      }
      let context = ModelStack.forTesting([me, group] + messages).ui.context
      let all = context.messages(in: group)
      let limit = Int.random(in: 1...12, using: &random)
      let before =
        all.isEmpty || Bool.random(using: &random) ? nil : all.randomElement(using: &random)

      // when
      let page = context.latestMessages(in: group, limit: limit, before: before)

      // then
      let earlier = before.flatMap { all.firstIndex(of: $0) }.map { all[..<$0] } ?? all[...]
      #expect(page == Array(earlier.suffix(limit)), "seed \(seed)")
    }

    /// One edit of a message, as a row of the seeded sequences below.
    enum PageEdit: CaseIterable {
      case write, send, resend, rewrite, delete, save, rollback
    }

    @Test(
      "Pages stay the tail of the whole list while messages are written, sent and deleted, saved or not, for seeded sequences",
      arguments: 1...20 as ClosedRange<UInt64>)
    func latestMessagesAcrossEdits(seed: UInt64) throws {
      // given: a conversation whose pages were read once, so that its messages are kept in order
      var random = SeededRandomNumberGenerator(seed: seed)
      let me = make.selfUser()
      let group = make.conversation(creator: me)
      let other = make.conversation(creator: me)
      let messages = (0..<30).map { index in
        var message = make.message(in: group, from: me, text: "m\(index)")
        message.serverTime = make.now.addingTimeInterval(Double(index % 7))
        return message
      }
      let context = ModelStack.forTesting([me, group, other] + messages).ui.context
      _ = context.latestMessages(in: group, limit: 5)

      for step in 0..<40 {
        // when: one edit, then a page read
        let ids = context.messages(in: group).map(\.id) + context.messages(in: other).map(\.id)
        let id = ids.randomElement(using: &random)
        let time = make.now.addingTimeInterval(Double.random(in: 0...8, using: &random).rounded())
        switch PageEdit.allCases.randomElement(using: &random) ?? .save {
        case .write:
          try context.insert(make.message(in: group, from: me, text: "w\(step)"))
        case .send:
          if let id { try context.update(Message.self, id: id) { $0.serverTime = time } }
        case .resend:
          if let id { try context.update(Message.self, id: id) { $0.serverTime = nil } }
        case .rewrite:
          if let id { try context.update(Message.self, id: id) { $0.text = "r\(step)" } }
        case .delete:
          if let id { try context.delete(Message.self, id: id) }
        case .save:
          _ = try context.save()
        case .rollback:
          context.rollback()
        }
        let all = context.messages(in: group)
        let limit = Int.random(in: 1...12, using: &random)
        let before = Bool.random(using: &random) ? all.randomElement(using: &random) : nil
        let page = context.latestMessages(in: group, limit: limit, before: before)

        // then
        let earlier = before.flatMap { all.firstIndex(of: $0) }.map { all[..<$0] } ?? all[...]
        let expected = Array(earlier.suffix(limit))
        let isTail = page == expected
        try #require(
          isTail,
          "seed \(seed), step \(step): \(page.map(\.text)), not \(expected.map(\.text))")
      }
    }

    @Test("Conversations come latest event first, ties by id, as many as asked")
    func recentConversations() throws {
      // given
      let me = make.selfUser()
      var old = make.conversation(name: "Old", creator: me)
      old.lastEventTime = make.now.addingTimeInterval(-60)
      var new = make.conversation(name: "New", creator: me)
      new.lastEventTime = make.now.addingTimeInterval(60)
      let tied = [make.conversation(creator: me), make.conversation(creator: me)]
        .sorted { $0.id < $1.id }
      let context = ModelStack.forTesting([me, old, new] + tied).ui.context

      // when
      let all = context.recentConversations()
      let top = context.recentConversations(limit: 2)

      // then
      #expect(all.map(\.id) == [new.id] + tied.map(\.id) + [old.id])
      #expect(top.map(\.id) == [new.id, tied[0].id])
      #expect(context.recentConversations(limit: -1).isEmpty)
    }
  }
}

/// One validation rule broken on purpose, as a row of a table.
enum RuleCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case blankUserName, blankGroupName, blankMessage, messageWithoutConversation

  var testDescription: String { rawValue }

  @MainActor
  func apply(
    to context: ModelContext, make: ModelFactory, me: User, group: Conversation
  ) throws -> (ObjectReference, ValidationRule) {
    switch self {
    case .blankUserName:
      try context.update(User.self, id: me.id) { $0.name = "  \n" }
      return (ObjectReference(.user, me.id), .nameNotEmpty(.user))
    case .blankGroupName:
      try context.update(Conversation.self, id: group.id) { $0.name = "" }
      return (ObjectReference(.conversation, group.id), .nameNotEmpty(.conversation))
    case .blankMessage:
      let message = make.message(in: group, from: me, text: " ")
      try context.insert(message)
      return (ObjectReference(.message, message.id), .messageTextNotEmpty)
    case .messageWithoutConversation:
      let elsewhere = make.conversation(creator: me)
      let message = make.message(in: elsewhere, from: me)
      try context.insert(message)
      return (ObjectReference(.message, message.id), .messageNeedsConversation(elsewhere.id))
    }
  }
}
