import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("RefusingStore", .tags(.testSupport, .models), .courier(timeBudget: .seconds(5)))
@MainActor
struct RefusingStoreTests {
  let make = ModelFactory()

  @Test(
    "It refuses the saves it was told to, after those it lets through, and takes the rest",
    arguments: zip(
      [(1, 0), (2, 0), (1, 2)],
      [[false, true, true, true], [false, false, true, true], [true, true, false, true]]))
  func refusesAsTold(plan: (count: Int, skipped: Int), taken: [Bool]) throws {
    // given
    let store = RefusingStore()
    let stack = try ModelStack(store: store)
    store.refuseNextSaves(plan.count, after: plan.skipped)

    // when
    let outcomes = try (0..<4).map { index in
      try stack.ui.context.insert(make.user(name: "User \(index)"))
      do {
        try stack.ui.context.save()
        return true
      } catch {
        return false
      }
    }

    // then
    #expect(outcomes == taken)
  }

  @Test("A refused save writes nothing, and says the store refused it")
  func refusedSaveWritesNothing() throws {
    // given
    let store = RefusingStore()
    let stack = try ModelStack(store: store)
    try stack.ui.context.insert(make.user(name: "Ann"))
    store.refuseNextSaves(1)

    // when
    let error = #expect(throws: SaveError.self) { try stack.ui.context.save() }

    // then
    #expect(error?.description.contains("RefusingStore") == true)
    #expect(store.load() == StoredState())
  }
}
