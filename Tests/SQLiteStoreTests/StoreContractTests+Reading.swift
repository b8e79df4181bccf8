import Foundation
import Models
import ModelsTestSupport
import SQLiteStore
import Seams
import TestSupport
import Testing

extension StoreContractTests {
  /// A conversation with `count` messages saved, some sent with server times that tie or run
  /// against their local times, some still unsent; and the stack that saved them.
  static func savedConversation(_ count: Int, in store: any ModelStore) throws -> (
    InlineModelStack, Conversation, [Message]
  ) {
    let stack = try InlineModelStack(store: store)
    let me = make.selfUser()
    let lunch = make.conversation(creator: me)
    let other = make.conversation(creator: me)
    stack.sync.applyRemote(me)
    stack.sync.applyRemote(lunch)
    stack.sync.applyRemote(other)
    var messages: [Message] = []
    for index in 0..<count {
      var message = make.message(in: index % 4 == 3 ? other : lunch, from: me)
      if index % 3 != 0 {
        message.serverTime = Date(timeIntervalSince1970: Double(2_000_000_000 - (index / 2) * 10))
        message.deliveryState = .sent
      }
      stack.sync.applyRemote(message)
      messages.append(message)
    }
    try stack.sync.save()
    return (stack, lunch, messages)
  }

  @Test(
    "A page of a conversation's messages reads from the store as the context shows it, and so does the page before it",
    arguments: StoreKind.allCases)
  func pagesOfMessages(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)

    // when
    let (pages, shown) = try await DedicatedThread.perform {
      let (stack, lunch, _) = try Self.savedConversation(40, in: store)
      let reopened = try reopen()
      let latest = try reopened.children(Message.self, of: lunch.id, limit: 7, before: nil)
      let earlier = try reopened.children(
        Message.self, of: lunch.id, limit: 7, before: latest.first)
      let shownLatest = stack.ui.latestMessages(in: lunch, limit: 7)
      let shownEarlier = stack.ui.latestMessages(in: lunch, limit: 7, before: shownLatest.first)
      return ([latest, earlier], [shownLatest, shownEarlier])
    }

    // then
    #expect(pages == shown)
    #expect(pages.allSatisfy { $0.count == 7 })
  }

  @Test(
    "Opening reads every object but the messages, and the change log and metadata whole",
    arguments: StoreKind.allCases)
  func openingLeavesMessagesUnread(_ kind: StoreKind) async throws {
    // given: messages saved, and a change of one still to push
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)

    // when
    let (opening, whole) = try await DedicatedThread.perform {
      let (stack, _, messages) = try Self.savedConversation(6, in: store)
      try stack.ui.update(Message.self, id: messages[0].id) { $0.text = "Edited" }
      try stack.ui.save()
      let reopened = try reopen()
      return (try reopened.loadForOpening(), try reopened.load())
    }

    // then
    #expect(opening.tables.count(of: Message.self) == 0)
    #expect(whole.tables.count(of: Message.self) == 6)
    #expect(opening.tables.count(of: Conversation.self) == 2)
    #expect(opening.tables.count(of: User.self) == whole.tables.count(of: User.self))
    #expect(opening.changeLog == whole.changeLog)
    #expect(!opening.changeLog.isEmpty)
    #expect(opening.metadata == whole.metadata)
  }

  @Test(
    "A page whose limit is Int.max reads every message of the conversation",
    arguments: StoreKind.allCases)
  func unboundedPage(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)

    // when
    let (page, lunchMessages) = try await DedicatedThread.perform {
      let (_, lunch, messages) = try Self.savedConversation(9, in: store)
      let page = try reopen().children(Message.self, of: lunch.id, limit: .max, before: nil)
      return (page, messages.filter { $0.conversationID == lunch.id })
    }

    // then
    #expect(Set(page.map(\.id)) == Set(lunchMessages.map(\.id)))
  }

  @Test(
    "A message sent or deleted since moves in or out of the pages the store reads",
    arguments: StoreKind.allCases)
  func pagesFollowSaves(_ kind: StoreKind) async throws {
    // given
    let directory = try TemporaryDirectory()
    let (store, reopen) = try kind.make(in: directory)

    // when: the earliest message is sent now, the latest sent one is deleted
    let (page, shown, object, gone) = try await DedicatedThread.perform {
      let (stack, lunch, messages) = try Self.savedConversation(12, in: store)
      let ordered = stack.ui.messages(in: lunch)
      guard let first = ordered.first, let lastSent = ordered.last(where: { $0.serverTime != nil })
      else { return ([Message](), [Message](), Message?.none, Message?.none) }
      try stack.ui.update(Message.self, id: first.id) {
        $0.serverTime = Date(timeIntervalSince1970: 3_000_000_000)
      }
      try stack.ui.delete(Message.self, id: lastSent.id)
      try stack.ui.save()
      let reopened = try reopen()
      return (
        try reopened.children(Message.self, of: lunch.id, limit: 100, before: nil),
        stack.ui.messages(in: lunch),
        try reopened.object(Message.self, id: first.id),
        try reopened.object(Message.self, id: lastSent.id) ?? messages.first { _ in false }
      )
    }

    // then
    #expect(page == shown)
    #expect(object?.serverTime == Date(timeIntervalSince1970: 3_000_000_000))
    #expect(gone == nil)
  }
}
