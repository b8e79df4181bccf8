import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("History", .tags(.testSupport, .models), .courier(timeBudget: .seconds(5)))
@MainActor
struct HistoryTests {
  let make = ModelFactory()

  @Test("It records each value a key takes in the context, once each, and nil once it is gone")
  func recordsValues() async throws {
    // given
    let user = make.user(name: "Ada")
    let stack = ModelStack.forTesting([user])
    let ui = stack.ui.context
    let names = ui.history(of: User.self, id: user.id, \.name)

    // when
    for name in ["Grace", "Grace", "Hopper"] {
      try ui.update(User.self, id: user.id) { $0.name = name }
      try ui.save()
      await Task.yield()
    }

    // then
    #expect(await names.values() == ["Ada", "Grace", "Hopper"])
  }

  @Test("It reads the value the context holds now even before the change is announced")
  func currentValueIsLast() async throws {
    // given
    let user = make.user(name: "Ada")
    let stack = ModelStack.forTesting([user])
    let ui = stack.ui.context
    let names = ui.history(of: User.self, id: user.id, \.name)

    // when
    try ui.update(User.self, id: user.id) { $0.name = "Grace" }

    // then
    #expect(await names.values() == ["Ada", "Grace"])
  }
}
