import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("InlineModelStack", .tags(.models), .courier(timeBudget: .seconds(5)))
@MainActor
struct InlineModelStackTests {
  let make = ModelFactory()

  @Test("A UI save is in the sync context, with its change log, when save returns")
  func uiSaveMergesAtOnce() throws {
    // given
    let user = make.selfUser(name: "Ann")
    let stack = InlineModelStack(Tables([user]))
    try stack.ui.update(User.self, id: user.id) { $0.name = "Anna" }

    // when
    try stack.ui.save()

    // then
    #expect(stack.sync.object(User.self, id: user.id)?.name == "Anna")
    #expect(stack.sync.localChanges(of: User.self).keys(of: user.id) == [.name])
  }

  @Test("A sync save is in the UI context when save returns, and leaves no local change")
  func syncSaveMergesAtOnce() throws {
    // given
    let user = make.user(name: "Ann")
    let stack = InlineModelStack()
    stack.sync.applyRemote(user)

    // when
    try stack.sync.save()

    // then
    #expect(stack.ui.object(User.self, id: user.id) == user)
    #expect(stack.sync.localChanges(of: User.self).objectIDs.isEmpty)
  }

  @Test("Both contexts open on what the store holds, and saves reach the store")
  func opensOnStore() throws {
    // given
    let ann = make.user(name: "Ann")
    let store = InMemoryStore(Tables([ann]))
    let stack = try InlineModelStack(store: store)
    let bob = make.user(name: "Bob")
    try stack.ui.insert(bob)

    // when
    try stack.ui.save()

    // then
    #expect(stack.sync.object(User.self, id: ann.id) == ann)
    let stored = store.load()
    #expect(stored.tables.object(User.self, id: bob.id) == bob)
  }
}
