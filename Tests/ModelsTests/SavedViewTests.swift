import Foundation
import ModelsTestSupport
import TestSupport
import Testing

@testable import Models

@Suite("SavedView", .tags(.models), .courier(timeBudget: .seconds(5)))
@MainActor
struct SavedViewTests {
  let make = ModelFactory()

  /// A stack whose store holds a conversation with three messages; and the conversation and its
  /// messages in display order.
  func savedConversation() throws -> (InlineModelStack, Conversation, [Message]) {
    let me = make.selfUser()
    let lunch = make.conversation(creator: me)
    let messages = (0..<3).map { _ in make.message(in: lunch, from: me) }
    let stack = InlineModelStack(Tables([me, lunch] + messages))
    return (stack, lunch, messages)
  }

  @Test("An object a save in the inbox updated reads as it was before that save")
  func updatedObjectReadsAsBefore() throws {
    // given: the store holds the UI's save, which the reader's inbox still holds
    let (stack, _, messages) = try savedConversation()
    try stack.ui.update(Message.self, id: messages[0].id) { $0.text = "Changed" }
    let save = try stack.ui.save()
    let view = SavedView(store: stack.store, inbox: [save])

    // when
    let read = try view.object(Message.self, id: messages[0].id)

    // then
    #expect(read == messages[0])
    #expect(try stack.store.object(Message.self, id: messages[0].id)?.text == "Changed")
  }

  @Test(
    "An object a save in the inbox deleted reads as it was, and one it inserted reads as absent")
  func deletedAndInsertedObjects() throws {
    // given
    let (stack, lunch, messages) = try savedConversation()
    let me = try #require(stack.ui.selfUser)
    let new = make.message(in: lunch, from: me)
    try stack.ui.delete(Message.self, id: messages[1].id)
    try stack.ui.insert(new)
    let save = try stack.ui.save()
    let view = SavedView(store: stack.store, inbox: [save])

    // when
    let deleted = try view.object(Message.self, id: messages[1].id)
    let inserted = try view.object(Message.self, id: new.id)
    let rows = try view.rows(of: Message.self)

    // then
    #expect(deleted == messages[1])
    #expect(inserted == nil)
    #expect(Set(rows.keys) == Set(messages.map(\.id)))
  }

  @Test("A page reads the conversation as it was before the saves in the inbox")
  func pageReadsAsBefore() throws {
    // given: the latest message is deleted and the middle one sent, which shows it first, in
    // two saves
    let (stack, lunch, messages) = try savedConversation()
    try stack.ui.delete(Message.self, id: messages[2].id)
    let first = try stack.ui.save()
    try stack.ui.update(Message.self, id: messages[1].id) {
      $0.serverTime = Date(timeIntervalSince1970: 1_000)
    }
    let second = try stack.ui.save()
    let view = SavedView(store: stack.store, inbox: [first, second])

    // when
    let page = try view.children(Message.self, of: lunch.id, limit: 2, before: nil)

    // then
    #expect(page == [messages[1], messages[2]])
  }

  @Test("With an empty inbox, a view reads what the store holds")
  func emptyInboxReadsTheStore() throws {
    // given
    let (stack, lunch, messages) = try savedConversation()
    let view = SavedView(store: stack.store, inbox: [])

    // when
    let page = try view.children(Message.self, of: lunch.id, limit: 10, before: messages[2])

    // then
    #expect(page == [messages[0], messages[1]])
  }
}
