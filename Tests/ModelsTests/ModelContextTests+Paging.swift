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

    @Test(
      "Past its limit, a context lets go of the messages it does not need, and reads them again")
    func releasesPastTheLimit() throws {
      // given: a limit of two, and three messages read in each context
      let me = make.selfUser()
      let lunch = make.conversation(creator: me)
      let messages = (0..<4).map { _ in make.message(in: lunch, from: me) }
      let store = InMemoryStore(Tables([me, lunch] + messages))
      let stack = try InlineModelStack(store: store, pagedObjectLimit: 2)
      for message in messages.prefix(3) {
        _ = stack.ui.object(Message.self, id: message.id)
        _ = stack.sync.object(Message.self, id: message.id)
      }
      try stack.ui.update(Message.self, id: messages[0].id) { $0.text = "Changed" }

      // when
      try stack.ui.save()

      // then: the UI holds none; the sync context holds the one with a change to push
      #expect(stack.ui.committed.count(of: Message.self) == 0)
      #expect(stack.sync.committed.count(of: Message.self) == 1)
      #expect(stack.sync.committed.object(Message.self, id: messages[0].id)?.text == "Changed")
      #expect(stack.ui.object(Message.self, id: messages[1].id) == messages[1])
      #expect(stack.ui.object(Message.self, id: messages[0].id)?.text == "Changed")
    }

    @Test("A sync context opened on messages still to send holds them, and no other message")
    func syncHoldsLoggedMessagesOnOpening() throws {
      // given: a message posted and saved, not yet sent, and the stack opened again
      let me = make.selfUser()
      let lunch = make.conversation(creator: me)
      let sent = (0..<3).map { _ in make.message(in: lunch, from: me) }
      let stack = try InlineModelStack(store: InMemoryStore(Tables([me, lunch] + sent)))
      let posted = make.message(in: lunch, from: me)
      try stack.ui.insert(posted)
      try stack.ui.save()

      // when
      let reopened = try InlineModelStack(store: stack.store)

      // then
      #expect(reopened.sync.committed.rows(of: Message.self) == [posted.id: posted])
      #expect(reopened.ui.committed.count(of: Message.self) == 0)
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

    @Test("A message the other context saved reads as it was until the save is merged")
    func unmergedSaveReadsAsBefore() throws {
      // given: two contexts over one store whose saves wait in the inbox until merged by hand
      let me = make.selfUser()
      let lunch = make.conversation(creator: me)
      let message = make.message(in: lunch, from: me, text: "Before")
      let tables = Tables([me, lunch, message])
      let coordinator = StoreCoordinator(
        store: InMemoryStore(tables), entities: .standard, changeLog: ChangeLogRecords())
      func context(_ role: ContextRole) -> ModelContext {
        ModelContext(
          role: role, entities: .standard, coordinator: coordinator,
          state: StoredState(tables: tables), uuids: .seeded(1))
      }
      let ui = context(.ui)
      let sync = context(.sync)
      try ui.update(Message.self, id: message.id) { $0.text = "After" }
      try ui.save()

      // when
      let read = sync.object(Message.self, id: message.id)
      sync.mergeIncoming()

      // then
      #expect(read?.text == "Before")
      #expect(sync.object(Message.self, id: message.id)?.text == "After")
      #expect(sync.localChanges(of: Message.self).backendValue(of: message.id) == message)
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
