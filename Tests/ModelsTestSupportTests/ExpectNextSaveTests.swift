import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("expectNextSave", .tags(.testSupport, .models), .courier(timeBudget: .seconds(5)))
@MainActor
struct ExpectNextSaveTests {
  let make = ModelFactory()

  @Test("It returns the change set of the save the action caused")
  func returnsChangeSet() async throws {
    // given
    let stack = ModelStack.forTesting()
    let user = make.user()
    try stack.ui.context.insert(user)

    // when
    let changes = try await expectNextSave(of: stack.ui) { try stack.ui.context.save() }

    // then
    #expect(changes?[User.self].inserted == [user.id: user])
    await expectSettled(stack.tracker)
  }

  @Test("It records an issue naming the context when the action saves nothing")
  func reportsMissingSave() async {
    // given
    let stack = ModelStack.forTesting()

    // when
    var changes: ChangeSet?
    await withKnownIssue {
      changes = await expectNextSave(of: stack.sync, within: .milliseconds(20)) {}
    } matching: {
      $0.mentions("the next save of the sync context")
    }

    // then
    #expect(changes == nil)
  }

  @Test("A merge into the context is not taken for its save")
  func mergeIsNotASave() async throws {
    // given
    let stack = ModelStack.forTesting()
    try stack.ui.context.insert(make.user())

    // when
    var saved: ChangeSet?
    try await withKnownIssue {
      saved = try await expectNextSave(of: stack.sync, within: .milliseconds(50)) {
        try stack.ui.context.save()
      }
    } matching: {
      $0.mentions("the next save of the sync context")
    }

    // then
    #expect(saved == nil)
    await expectSettled(stack.tracker)
  }

  @Test("expectNextMerge returns the change set the other context saved")
  func nextMerge() async throws {
    // given
    let stack = ModelStack.forTesting()
    let user = make.user()
    try stack.ui.context.insert(user)

    // when
    let merged = try await expectNextMerge(into: stack.sync) { try stack.ui.context.save() }

    // then
    #expect(merged?.origin == .ui)
    #expect(merged?[User.self].inserted[user.id] == user)
  }
}
