import Foundation
import ModelsTestSupport
import Seams
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

  @Test(
    "Through any inbox of saves, a view reads every message and page as it was before them",
    arguments: 1...40 as ClosedRange<UInt64>)
  func viewReadsStateBeforeInbox(seed: UInt64) throws {
    // given: two conversations of messages, then seeded saves of inserts, sends and deletions
    var random = SeededRandomNumberGenerator(seed: seed)
    let me = make.selfUser()
    let chats = [make.conversation(creator: me), make.conversation(creator: me)]
    let messages = (0..<12).map { make.message(in: chats[$0 % 2], from: me) }
    let stack = InlineModelStack(Tables([me] + chats + messages))
    let earlier = try stack.store.load().tables
    var inbox: [ChangeSet] = []
    for _ in 0..<Int.random(in: 1...5, using: &random) {
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let present = stack.ui.objects(Message.self)
        switch Int.random(in: 0...2, using: &random) {
        case 0:
          try stack.ui.insert(
            make.message(in: chats.randomElement(using: &random) ?? chats[0], from: me))
        case 1:
          guard let message = present.randomElement(using: &random) else { continue }
          let time = Date(timeIntervalSince1970: Double(Int.random(in: 0...20, using: &random)))
          try stack.ui.update(Message.self, id: message.id) { $0.serverTime = time }
        default:
          guard let message = present.randomElement(using: &random) else { continue }
          try stack.ui.delete(Message.self, id: message.id)
        }
      }
      inbox.append(try stack.ui.save())
    }
    let view = SavedView(store: stack.store, inbox: inbox)

    // when
    let rows = try view.rows(of: Message.self)
    let pages = try chats.flatMap { chat in
      try [1, 3, 50].map { try view.children(Message.self, of: chat.id, limit: $0, before: nil) }
    }

    // then
    let expected = earlier.table(Message.self).rows
    #expect(rows == expected)
    let expectedPages = chats.flatMap { chat in
      [1, 3, 50].map { limit in
        Array(
          expected.values.filter { $0.conversationID == chat.id }
            .sorted(by: Message.displayOrder).suffix(limit))
      }
    }
    #expect(pages == expectedPages)
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
