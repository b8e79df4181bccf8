import Foundation
import ModelsTestSupport
import TestSupport
import Testing

@testable import Models

extension ModelContextTests {
  @Suite("Paging")
  @MainActor
  struct Paging {
    let make = ModelFactory()

    /// A stack opened on a store that holds a conversation with `count` messages.
    func openedStack(messages count: Int) throws -> (InlineModelStack, Conversation, [Message]) {
      let me = make.selfUser()
      let lunch = make.conversation(creator: me)
      let messages = (0..<count).map { _ in make.message(in: lunch, from: me) }
      let store = InMemoryStore(Tables([me, lunch] + messages))
      return (try InlineModelStack(store: store), lunch, messages)
    }

    @Test("A context opens holding no message, and holds one once it is read")
    func holdsWhatWasRead() throws {
      // given
      let (stack, _, messages) = try openedStack(messages: 5)
      #expect(stack.ui.committed.count(of: Message.self) == 0)

      // when
      let read = stack.ui.object(Message.self, id: messages[3].id)

      // then
      #expect(read == messages[3])
      #expect(stack.ui.committed.count(of: Message.self) == 1)
      #expect(stack.ui.count(of: Message.self) == 5)
    }

    @Test("A page of messages is read from the store and not held")
    func pageIsNotHeld() throws {
      // given
      let (stack, lunch, messages) = try openedStack(messages: 5)

      // when
      let page = stack.ui.latestMessages(in: lunch, limit: 2)

      // then
      #expect(page == Array(messages.suffix(2)))
      #expect(stack.ui.committed.count(of: Message.self) == 0)
    }

    @Test(
      "The sync context measures a UI change of a message it never read against its value before")
    func syncKeepsOriginalOfUnreadMessage() throws {
      // given
      let (stack, _, messages) = try openedStack(messages: 2)
      try stack.ui.update(Message.self, id: messages[0].id) { $0.text = "Changed" }

      // when
      try stack.ui.save()

      // then
      let changes = stack.sync.localChanges(of: Message.self)
      #expect(changes.keys(of: messages[0].id) == [.text])
      #expect(changes.backendValue(of: messages[0].id) == messages[0])
    }
  }
}
