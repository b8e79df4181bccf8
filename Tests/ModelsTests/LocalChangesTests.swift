import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("LocalChanges", .tags(.models, .sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct LocalChangesTests {
  let make = ModelFactory()

  /// Saves `edits` in the UI context and waits until the sync context merged them.
  func saveInUI(_ stack: ModelStack, _ edits: (ModelContext) throws -> Void) async throws {
    try edits(stack.ui.context)
    try stack.ui.context.save()
    await expectSettled(stack.tracker)
  }

  @Test("Changed keys add up across any number of UI saves")
  func keysAccumulate() async throws {
    // given
    let user = make.user(name: "Ann")
    let stack = ModelStack.forTesting([user])

    // when
    try await saveInUI(stack) { try $0.update(User.self, id: user.id) { $0.name = "A" } }
    try await saveInUI(stack) { try $0.update(User.self, id: user.id) { $0.accentID = 4 } }
    try await saveInUI(stack) { try $0.update(User.self, id: user.id) { $0.name = "B" } }

    // then
    let changes = await stack.sync.perform { $0.localChanges(of: User.self) }
    #expect(changes.updatedKeys == [user.id: [.name, .accentID]])
    #expect(changes.objectIDs == [user.id])
  }

  @Test(
    "A changed key's edit base is its last synchronised value at the user's last change, which news do not move and an acknowledgement does"
  )
  func editBases() async throws {
    // given: a group with Ann; the user adds Bob
    let me = make.selfUser()
    let ann = make.user(name: "Ann")
    let bob = make.user(name: "Bob")
    let group = make.conversation(creator: me, participants: [ann])
    let stack = ModelStack.forTesting([me, ann, bob, group])
    try await saveInUI(stack) {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob.id) }
    }
    let atChange = await stack.sync.perform { $0.localChanges(of: Conversation.self) }

    // when: news say Cat joined; then the backend acknowledges Bob
    let (afterNews, afterAnswer) = await stack.sync.perform { context in
      context.updateLastSynchronised(Conversation.self, id: group.id) {
        $0.participantIDs.insert(UUID(9))
      }
      let afterNews = context.localChanges(of: Conversation.self)
      var acknowledged = group
      acknowledged.participantIDs = [me.id, ann.id, bob.id, UUID(9)]
      context.recordSynchronised(acknowledged, keys: [.participantIDs])
      return (afterNews, context.localChanges(of: Conversation.self))
    }

    // then
    #expect(atChange.editBases[group.id]?.participantIDs == group.participantIDs)
    #expect(afterNews.originals[group.id]?.participantIDs.contains(UUID(9)) == true)
    #expect(afterNews.editBases[group.id]?.participantIDs == group.participantIDs)
    #expect(afterAnswer.editBases[group.id]?.participantIDs.contains(bob.id) == true)
  }

  @Test(
    "A save of a key a recorded call carried after it went is kept on the call's record, which a restart reads back"
  )
  func savesAfterARecordedCallSurviveRestart() throws {
    // given: the user renamed themselves to A, and the call that carries it was written ahead;
    // then they saved the name again, and the accent
    let user = make.user(name: "Ann")
    let store = InMemoryStore(Tables([user]))
    let before = try InlineModelStack(store: store)
    try before.ui.update(User.self, id: user.id) { $0.name = "A" }
    try before.ui.save()
    let sent = try #require(before.sync.object(User.self, id: user.id))
    let call = RecordedCall(idempotencyKey: "k", method: "PUT", segments: ["self"], body: nil)
    before.sync.recordInFlight(sent, keys: [.name], call: call)
    try before.sync.save()
    for edit in [{ (user: inout User) in user.name = "B" }, { $0.accentID = 3 }] {
      try before.ui.update(User.self, id: user.id, edit)
      try before.ui.save()
    }
    try before.sync.save()

    // when
    let after = try InlineModelStack(store: store)

    // then
    let changes = after.sync.localChanges(of: User.self)
    #expect(changes.unconfirmed[user.id]?.map(\.savedSince) == [[.name]])
  }

  @Test(
    "A member saved after a recorded call that named them went, even back to what it carried, is kept on the call's record, which a restart reads back"
  )
  func memberSavedAfterARecordedCallSurvivesRestart() throws {
    // given: the user took Bob out of a group, and the call that carries it was written ahead;
    // then they added Bob back and took him out again
    let (ann, bob) = (make.user(name: "Ann"), make.user(name: "Bob"))
    let group = make.conversation(creator: ann, participants: [bob])
    let store = InMemoryStore(Tables([ann, bob, group]))
    let before = try InlineModelStack(store: store)
    try before.ui.update(Conversation.self, id: group.id) { $0.participantIDs.remove(bob.id) }
    try before.ui.save()
    let sent = try #require(before.sync.object(Conversation.self, id: group.id))
    let call = RecordedCall(
      idempotencyKey: "k", method: "DELETE", segments: ["conversations"], body: nil)
    before.sync.recordInFlight(sent, keys: [.participantIDs], call: call)
    try before.sync.save()
    for added in [true, false] {
      try before.ui.update(Conversation.self, id: group.id) {
        if added { $0.participantIDs.insert(bob.id) } else { $0.participantIDs.remove(bob.id) }
      }
      try before.ui.save()
    }
    try before.sync.save()

    // when
    let after = try InlineModelStack(store: store)

    // then
    let changes = after.sync.localChanges(of: Conversation.self)
    let record = try #require(changes.unconfirmed[group.id]?.first)
    #expect(record.savedSince == [.participantIDs])
    #expect(record.savedElementsSince == [.participantIDs: [SetElement(bob.id)]])
  }

  @Test("An edit base goes with its keys, and a store keeps it with them")
  func editBaseCleared() async throws {
    // given
    let user = make.user(name: "Ann")
    let stack = ModelStack.forTesting([user])
    try await saveInUI(stack) { try $0.update(User.self, id: user.id) { $0.name = "A" } }
    let record = await stack.sync.perform {
      $0.localChanges(of: User.self).pendingChange(of: user.id)
    }

    // when
    let cleared = await stack.sync.perform { context in
      context.clearLocalChanges(User.self, id: user.id, keys: [.name])
      return context.localChanges(of: User.self)
    }

    // then
    #expect(record.editBase?.name == "Ann")
    #expect(cleared.editBases[user.id] == nil)
    #expect(cleared.pendingChange(of: user.id).isEmpty)
  }

  @Test("Inserted and deleted objects are marked for upstream insert and delete")
  func insertAndDeleteMarks() async throws {
    // given
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let stack = ModelStack.forTesting([me, group])
    let message = make.message(in: group, from: me)

    // when
    try await saveInUI(stack) {
      try $0.insert(message)
      try $0.delete(Conversation.self, id: group.id)
      try $0.delete(Message.self, id: message.id)
    }

    // then
    let (messages, conversations) = await stack.sync.perform {
      ($0.localChanges(of: Message.self), $0.localChanges(of: Conversation.self))
    }
    #expect(messages.inserted.isEmpty)
    #expect(conversations.deleted == [group.id])
  }

  @Test("An insert stays marked while later edits add their keys")
  func insertThenEdit() async throws {
    // given
    let stack = ModelStack.forTesting()
    let user = make.user(name: "Ann")
    try await saveInUI(stack) { try $0.insert(user) }

    // when
    try await saveInUI(stack) { try $0.update(User.self, id: user.id) { $0.handle = "ann" } }

    // then
    let changes = await stack.sync.perform { $0.localChanges(of: User.self) }
    #expect(changes.inserted == [user.id])
    #expect(changes.keys(of: user.id) == [.handle])
  }

  @Test("Clearing some keys keeps the others until they are cleared too")
  func partialClear() async throws {
    // given
    let user = make.user(name: "Ann")
    let stack = ModelStack.forTesting([user])
    try await saveInUI(stack) {
      try $0.update(User.self, id: user.id) {
        $0.name = "A"
        $0.email = "a@example.com"
      }
    }

    // when
    let (afterFirst, afterSecond) = await stack.sync.perform { context in
      context.clearLocalChanges(User.self, id: user.id, keys: [.name])
      let first = context.localChanges(of: User.self)
      context.clearLocalChanges(User.self, id: user.id, keys: [.email])
      return (first, context.localChanges(of: User.self))
    }

    // then
    #expect(afterFirst.keys(of: user.id) == [.email])
    #expect(afterSecond.isEmpty)
  }

  @Test("Clearing an insertion or a deletion removes its mark")
  func clearInsertAndDelete() async throws {
    // given
    let kept = make.user()
    let stack = ModelStack.forTesting([kept])
    let added = make.user()
    try await saveInUI(stack) {
      try $0.insert(added)
      try $0.delete(User.self, id: kept.id)
    }

    // when
    let changes = await stack.sync.perform { context in
      context.clearLocalInsertion(User.self, id: added.id)
      context.clearLocalDeletion(User.self, id: kept.id)
      return context.localChanges(of: User.self)
    }

    // then
    #expect(changes.isEmpty)
  }

  @Test("The sync context's own saves are not local changes, and the UI context tracks nothing")
  func serverChangesAreNotTracked() async throws {
    // given
    let user = make.user(name: "Ann")
    let stack = ModelStack.forTesting([user])
    var server = user
    server.name = "Server"

    // when
    try await stack.sync.perform { [server] context throws(SaveError) in
      context.applyRemote(server)
      try context.save()
    }
    await expectSettled(stack.tracker)

    // then
    #expect(await stack.sync.perform { $0.localChanges(of: User.self) }.isEmpty)
    #expect(stack.ui.context.localChanges(of: User.self).isEmpty)
  }

  @Test("A remote deletion drops the object's pending local changes")
  func remoteDeletionDropsChanges() async throws {
    // given
    let user = make.user(name: "Ann")
    let stack = ModelStack.forTesting([user])
    try await saveInUI(stack) { try $0.update(User.self, id: user.id) { $0.name = "B" } }

    // when
    let changes = try await stack.sync.perform { context throws(SaveError) in
      context.applyRemoteDeletion(User.self, id: user.id)
      try context.save()
      return context.localChanges(of: User.self)
    }

    // then
    #expect(changes.isEmpty)
  }

  @Test(
    "Discarding an insertion the backend may hold drops the object and its referrers, and records a deletion of what the backend may hold"
  )
  func discardInsertionRecordsDeletion() async throws {
    // given
    let me = make.selfUser()
    let group = make.conversation(name: "Lunch", creator: me)
    let message = make.message(in: group, from: me)
    let stack = ModelStack.forTesting([me])
    try await saveInUI(stack) { context in
      try context.insert(group)
      try context.insert(message)
    }
    var sent = group
    sent.name = "Lunch at one"

    // when
    let (groups, messages) = try await stack.sync.perform { [sent] context throws(SaveError) in
      context.discardInsertion(Conversation.self, id: group.id, backendMayHold: sent)
      try context.save()
      return (context.localChanges(of: Conversation.self), context.localChanges(of: Message.self))
    }
    await expectSettled(stack.tracker)

    // then
    #expect(stack.ui.context.object(Conversation.self, id: group.id) == nil)
    #expect(stack.ui.context.object(Message.self, id: message.id) == nil)
    #expect(groups.inserted.isEmpty)
    #expect(groups.deleted == [group.id])
    #expect(groups.originals[group.id] == sent)
    #expect(groups.unconfirmed[group.id]?.map(\.value) == [sent])
    #expect(messages.isEmpty)
    let stored = try stack.store.load().changeLog[Conversation.self][group.id]
    #expect(stored?.isDeleted == true)
    #expect(stored?.original == sent)
  }

  @Test(
    "Restoring a given-up insertion makes the object new again, still marked as one the backend may hold"
  )
  func restoreInsertion() async throws {
    // given
    let me = make.selfUser()
    let group = make.conversation(name: "Lunch", creator: me)
    let stack = ModelStack.forTesting([me])
    try await saveInUI(stack) { try $0.insert(group) }
    try await stack.sync.perform { context throws(SaveError) in
      context.discardInsertion(Conversation.self, id: group.id, backendMayHold: group)
      try context.save()
    }

    // when
    let changes = try await stack.sync.perform { context throws(SaveError) in
      context.restoreInsertion(group)
      try context.save()
      return context.localChanges(of: Conversation.self)
    }
    await expectSettled(stack.tracker)

    // then
    #expect(stack.ui.context.object(Conversation.self, id: group.id) == group)
    #expect(changes.inserted == [group.id])
    #expect(changes.deleted.isEmpty)
    #expect(changes.originals[group.id] == nil)
    #expect(changes.unconfirmed[group.id]?.map(\.value) == [group])
  }

  @Test("A server copy of an object deleted here and not yet pushed does not bring it back")
  func remoteCopyDoesNotUndoLocalDeletion() async throws {
    // given
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let message = make.message(in: group, from: me)
    let stack = ModelStack.forTesting([me, group, message])
    try await saveInUI(stack) { try $0.delete(Message.self, id: message.id) }

    // when
    let (held, changes) = try await stack.sync.perform { context throws(SaveError) in
      context.applyRemote(message)
      try context.save()
      return (context.object(Message.self, id: message.id), context.localChanges(of: Message.self))
    }

    // then
    #expect(held == nil)
    #expect(changes.deleted == [message.id])
  }

  @Test("A server value of a key with no local change becomes that key's last synchronised value")
  func remoteValueUpdatesOriginal() async throws {
    // given
    let me = make.selfUser()
    let other = make.user(name: "Bo")
    let group = make.conversation(creator: me, participants: [other])
    let stack = ModelStack.forTesting([me, other, group])
    try await saveInUI(stack) { try $0.update(Conversation.self, id: group.id) { $0.name = "New" } }
    var edited = group
    edited.participantIDs = [me.id]
    let fromServer = edited

    // when
    let original = try await stack.sync.perform { context throws(SaveError) in
      context.applyRemote(fromServer)
      try context.save()
      return context.localChanges(of: Conversation.self).originals[group.id]
    }

    // then
    #expect(original?.participantIDs == [me.id])
    #expect(original?.name == group.name)
  }

  @Test(
    "A server change to a group whose creation is unanswered applies to what the creation sent, not to members added here since"
  )
  func serverChangeBeforeCreationIsAnswered() async throws {
    // given: the creation went with Ann and Bo, then Cy was added here
    let me = make.selfUser()
    let (ann, bo, cy) = (make.user(name: "Ann"), make.user(name: "Bo"), make.user(name: "Cy"))
    let stack = ModelStack.forTesting([me, ann, bo, cy])
    let group = make.conversation(creator: me, participants: [ann, bo])
    try await saveInUI(stack) { try $0.insert(group) }
    _ = await stack.sync.perform { $0.recordInFlight(group, keys: Set(Conversation.Key.allCases)) }
    try await saveInUI(stack) {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(cy.id) }
    }

    // when: the backend says Bo left
    let changes = await stack.sync.perform { context in
      context.updateLastSynchronised(Conversation.self, id: group.id) {
        $0.participantIDs.remove(bo.id)
      }
      return context.localChanges(of: Conversation.self)
    }

    // then
    #expect(changes.originals[group.id]?.participantIDs == [me.id, ann.id])
    #expect(changes.unconfirmed[group.id]?.map(\.value.participantIDs) == [[me.id, ann.id]])
    #expect(changes.backendValue(of: group.id)?.participantIDs == [me.id, ann.id])
  }

  @Test(
    "A write-ahead record is withdrawn by its mark even after the server's news changed it, and the other records stay"
  )
  func withdrawByMark() throws {
    // given: two creations went, and the backend then said Ann left
    let me = make.selfUser()
    let ann = make.user(name: "Ann")
    let stack = InlineModelStack(Tables([me, ann]))
    let group = make.conversation(name: "First", creator: me, participants: [ann])
    try stack.ui.insert(group)
    try stack.ui.save()
    var renamed = group
    renamed.name = "Second"
    let keys = Set(Conversation.Key.allCases)
    let first = stack.sync.recordInFlight(group, keys: keys)
    let second = stack.sync.recordInFlight(renamed, keys: keys)
    stack.sync.updateLastSynchronised(Conversation.self, id: group.id) {
      $0.participantIDs.remove(ann.id)
    }

    // when
    stack.sync.withdrawInFlight(Conversation.self, id: group.id, mark: second)

    // then
    let left = stack.sync.localChanges(of: Conversation.self).unconfirmed[group.id] ?? []
    #expect(left.map(\.mark) == [first])
    #expect(left.map(\.value.name) == ["First"])
    #expect(left.map(\.value.participantIDs) == [[me.id]])
  }

  @Test(
    "A write-ahead record's call and the last synchronised value's version survive a restart"
  )
  func keyAndVersionSurviveRestart() throws {
    // given: a rename went under key k-1, and news at version 7 moved the group's members
    let me = make.selfUser()
    let ann = make.user(name: "Ann")
    let group = make.conversation(name: "Lunch", creator: me, participants: [ann])
    let store = InMemoryStore(Tables([me, ann, group]))
    let before = try InlineModelStack(store: store)
    try before.ui.update(Conversation.self, id: group.id) { $0.name = "Brunch" }
    try before.ui.save()
    let sent = try #require(before.sync.object(Conversation.self, id: group.id))
    let call = RecordedCall(
      idempotencyKey: "k-1", method: "PUT", segments: ["conversations", "\(group.id)"],
      body: Data(#"{"name":"Brunch"}"#.utf8))
    before.sync.recordInFlight(sent, keys: [.name], call: call)
    before.sync.news = .version(7)
    before.sync.updateLastSynchronised(Conversation.self, id: group.id) {
      $0.participantIDs.remove(ann.id)
    }
    before.sync.news = nil
    try before.sync.save()

    // when
    let after = try InlineModelStack(store: store)

    // then
    let changes = after.sync.localChanges(of: Conversation.self)
    #expect(changes.unconfirmed[group.id]?.map(\.call) == [call])
    #expect(changes.originalVersions[group.id] == 7)
  }

  /// A rename of `group` recorded under k-1 and a removal of its members under k-2.
  static func calls(of group: Conversation) -> (rename: RecordedCall, removal: RecordedCall) {
    let rename = RecordedCall(
      idempotencyKey: "k-1", method: "PUT", segments: ["conversations", "\(group.id)"],
      body: Data(#"{"name":"Supper"}"#.utf8))
    let removal = RecordedCall(
      idempotencyKey: "k-2", method: "DELETE",
      segments: ["conversations", "\(group.id)", "members"], body: Data(#"{"users":[]}"#.utf8))
    return (rename, removal)
  }

  /// A stack holding Lunch with Ann, and the two calls of ``calls(of:)`` for it.
  func lunchWithCalls() -> (
    stack: InlineModelStack, group: Conversation, rename: RecordedCall, removal: RecordedCall
  ) {
    let me = make.selfUser()
    let ann = make.user(name: "Ann")
    let group = make.conversation(name: "Lunch", creator: me, participants: [ann])
    let (rename, removal) = Self.calls(of: group)
    return (InlineModelStack(Tables([me, ann, group])), group, rename, removal)
  }

  @Test(
    "A member saved while a call of the members may still apply is measured from what the user saw before the save; with no call out, from the last synchronised members",
    arguments: [true, false])
  func memberSavedWhileCallIsOut(callOut: Bool) throws {
    // given: the user takes Ann out of Lunch; the removal goes (or not), and news of it come
    let (stack, group, _, removal) = lunchWithCalls()
    let ann = try #require(group.participantIDs.first { $0 != group.creatorID })
    try stack.ui.update(Conversation.self, id: group.id) { $0.participantIDs.remove(ann) }
    try stack.ui.save()
    var sent = group
    sent.participantIDs.remove(ann)
    if callOut { stack.sync.recordInFlight(sent, keys: [.participantIDs], call: removal) }
    stack.sync.updateLastSynchronised(Conversation.self, id: group.id) {
      $0.participantIDs.remove(ann)
    }
    try stack.ui.update(Conversation.self, id: group.id) { $0.participantIDs.insert(ann) }
    try stack.ui.save()

    // when: the user takes Ann out again
    try stack.ui.update(Conversation.self, id: group.id) { $0.participantIDs.remove(ann) }
    try stack.ui.save()

    // then: with the call out, the save is a change of its own, measured from Ann in; without
    // it, the save undid the user's own addition
    let base = stack.sync.localChanges(of: Conversation.self).editBases[group.id]
    #expect(base?.participantIDs.contains(ann) == callOut)
  }

  @Test(
    "A save of a key a write-ahead record carries keeps the record's call, for a later life to send as it went"
  )
  func saveKeepsCall() throws {
    // given: a rename went under k-1 and a member change under k-2
    let (stack, group, rename, removal) = lunchWithCalls()
    stack.sync.recordInFlight(group, keys: [.name], call: rename)
    stack.sync.recordInFlight(group, keys: [.participantIDs], call: removal)

    // when: the user renames the group again
    try stack.ui.update(Conversation.self, id: group.id) { $0.name = "Brunch" }
    try stack.ui.save()

    // then
    let records = stack.sync.localChanges(of: Conversation.self).unconfirmed[group.id] ?? []
    #expect(records.map(\.call) == [rename, removal])
  }

  @Test("A save records the members it added or removed, each under that save's serial")
  func elementEdits() throws {
    // given: Lunch with Ann
    let me = make.selfUser()
    let (ann, bob, cy) = (make.user(name: "Ann"), make.user(name: "Bob"), make.user(name: "Cy"))
    let group = make.conversation(name: "Lunch", creator: me, participants: [ann])
    let stack = InlineModelStack(Tables([me, ann, bob, cy, group]))
    try stack.ui.update(Conversation.self, id: group.id) { $0.participantIDs.insert(bob.id) }
    try stack.ui.save()

    // when: a later save adds Cy and renames the group
    try stack.ui.update(Conversation.self, id: group.id) {
      $0.participantIDs.insert(cy.id)
      $0.name = "Brunch"
    }
    try stack.ui.save()

    // then: Ann, untouched, has no serial, and the name, a key of one value, has no elements
    let changes = stack.sync.localChanges(of: Conversation.self)
    let serials = changes.lastElementEdits[group.id]?[.participantIDs] ?? [:]
    let (bobs, cys) = (serials[SetElement(bob.id)], serials[SetElement(cy.id)])
    #expect(Set(serials.keys) == [SetElement(bob.id), SetElement(cy.id)])
    #expect(bobs.flatMap { bobs in cys.map { bobs < $0 } } == true)
    #expect(cys == changes.lastEdits[group.id]?[.participantIDs])
    #expect(changes.lastElementEdits[group.id]?[.name] == nil)
  }

  @Test(
    "Ending a call takes it off the records that went under its key, and only those; the values stay possible"
  )
  func endCallKeepsValues() throws {
    // given: a rename went under k-1, twice, and a member change under k-2
    let (stack, group, rename, removal) = lunchWithCalls()
    stack.sync.recordInFlight(group, keys: [.name], call: rename)
    stack.sync.recordInFlight(group, keys: [.name], call: rename)
    stack.sync.recordInFlight(group, keys: [.participantIDs], call: removal)

    // when
    stack.sync.endCall(Conversation.self, id: group.id, idempotencyKey: "k-1")

    // then
    let records = stack.sync.localChanges(of: Conversation.self).unconfirmed[group.id] ?? []
    #expect(records.map(\.call) == [nil, nil, removal])
    #expect(records.map(\.keys) == [[.name], [.name], [.participantIDs]])
  }

  @Test("A context opened on a store marks new write-ahead records above every mark it holds")
  func marksGrowAcrossRestarts() throws {
    // given: the app died with two records written ahead, and the first was withdrawn
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let store = InMemoryStore(Tables([me]))
    let before = try InlineModelStack(store: store)
    try before.ui.insert(group)
    try before.ui.save()
    let first = before.sync.recordInFlight(group, keys: [.name])
    let second = before.sync.recordInFlight(group, keys: [.name])
    before.sync.withdrawInFlight(Conversation.self, id: group.id, mark: first)
    try before.sync.save()
    let after = try InlineModelStack(store: store)

    // when
    let next = after.sync.recordInFlight(group, keys: [.name])

    // then
    #expect(first.serial < second.serial)
    #expect(next.serial > second.serial)
    let marks = after.sync.localChanges(of: Conversation.self).unconfirmed[group.id]?.map(\.mark)
    #expect(marks == [second, next])
  }

  @Test("What the backend holds is unknown for a new object no creation carried yet")
  func noBackendValueBeforeCreationGoes() async throws {
    // given
    let me = make.selfUser()
    let stack = ModelStack.forTesting([me])
    let group = make.conversation(creator: me)

    // when
    try await saveInUI(stack) { try $0.insert(group) }

    // then
    let changes = await stack.sync.perform { $0.localChanges(of: Conversation.self) }
    #expect(changes.inserted == [group.id])
    #expect(changes.backendValue(of: group.id) == nil)
  }

  /// A stack whose user made a group with Ann and Bo: the first creation went, the user renamed
  /// the group, the second creation went with the new name, and the user then added Cy.
  func groupSentTwice() throws -> (stack: InlineModelStack, group: Conversation) {
    let me = make.selfUser()
    let (ann, bo, cy) = (make.user(name: "Ann"), make.user(name: "Bo"), make.user(name: "Cy"))
    let stack = InlineModelStack(Tables([me, ann, bo, cy]))
    let group = make.conversation(name: "First", creator: me, participants: [ann, bo])
    try stack.ui.insert(group)
    try stack.ui.save()
    let keys = Set(Conversation.Key.allCases)
    stack.sync.recordInFlight(group, keys: keys)
    try stack.ui.update(Conversation.self, id: group.id) { $0.name = "Second" }
    try stack.ui.save()
    stack.sync.recordInFlight(
      stack.sync.object(Conversation.self, id: group.id) ?? group, keys: keys)
    try stack.ui.update(Conversation.self, id: group.id) { $0.participantIDs.insert(cy.id) }
    try stack.ui.save()
    return (stack, group)
  }

  @Test(
    "A change of a new object made after a creation went is noted on that version, measured against what the backend was taken to hold"
  )
  func editsAfterCreationWent() throws {
    // given
    let (stack, group) = try groupSentTwice()

    // when
    let versions = stack.sync.localChanges(of: Conversation.self).unconfirmed[group.id] ?? []

    // then
    #expect(
      versions.map { $0.editedSince?.keys } == [[.name, .participantIDs], [.participantIDs]])
    #expect(versions.map { $0.editedSince?.value.name } == ["First", "First"])
    #expect(
      versions.map { $0.editedSince?.value.participantIDs } == [
        group.participantIDs, group.participantIDs,
      ])
  }

  @Test(
    "News of a creation leave every version with the changes made after the one the backend kept went",
    arguments: zip(
      ["First", "Second", "Other"],
      [
        [[.name, .participantIDs], [.name, .participantIDs]],
        [[.participantIDs], [.participantIDs]],
        [[.name, .participantIDs], [.participantIDs]],
      ] as [[Set<Conversation.Key>]]))
  func creationNewsKeepLaterEdits(keptName: String, expected: [Set<Conversation.Key>]) throws {
    // given: news that the backend made the group with the name of the first version, of the
    // second, or of neither
    let (stack, group) = try groupSentTwice()
    var made = group
    made.name = keptName

    // when
    stack.sync.hearCreation(made) { $0.name == keptName }

    // then
    let changes = stack.sync.localChanges(of: Conversation.self)
    let versions = changes.unconfirmed[group.id] ?? []
    #expect(versions.map { $0.editedSince?.keys ?? [] } == expected)
    #expect(versions.map(\.value) == [made, made])
    #expect(changes.backendValue(of: group.id) == made)
  }

  @Test("The changes made after a creation went are kept in the store with its version")
  func editsAfterCreationWentAreStored() throws {
    // given
    let me = make.selfUser()
    let store = InMemoryStore(Tables([me]))
    let before = try InlineModelStack(store: store)
    let group = make.conversation(name: "First", creator: me)
    try before.ui.insert(group)
    try before.ui.save()
    before.sync.recordInFlight(group, keys: [.name])
    try before.ui.update(Conversation.self, id: group.id) { $0.name = "Second" }
    try before.ui.save()
    try before.sync.save()

    // when
    let after = try InlineModelStack(store: store)

    // then
    let versions = after.sync.localChanges(of: Conversation.self).unconfirmed[group.id]
    #expect(versions?.map(\.editedSince) == [EditBase(keys: [.name], value: group)])
  }
}
