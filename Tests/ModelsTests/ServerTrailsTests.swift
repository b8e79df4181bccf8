import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("ServerTrails", .tags(.models, .sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct ServerTrailsTests {
  let make = ModelFactory()

  /// A stack holding Ann, renamed "Local" in the UI and merged into the sync context, so the sync
  /// context keeps her last synchronised value.
  func stackWithPendingRename() async throws -> (ModelStack, User) {
    let ann = make.user(name: "Ann")
    let stack = ModelStack.forTesting([ann])
    try stack.ui.context.update(User.self, id: ann.id) { $0.name = "Local" }
    try stack.ui.context.save()
    await expectSettled(stack.tracker)
    return (stack, ann)
  }

  @Test(
    "It returns each value the server was heard to hold since the mark, oldest first, even one that changed back"
  )
  func heardSinceMark() async throws {
    // given
    let (stack, ann) = try await stackWithPendingRename()

    // when
    let heard = await stack.sync.perform { context in
      context.news = .version(1)
      let mark = context.startServerTrail(of: User.self, id: ann.id)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Theirs" }
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Ann" }
      return context.endServerTrail(of: User.self, id: ann.id, from: mark)
    }

    // then
    #expect(heard.map(\.name) == ["Theirs", "Ann"])
  }

  @Test(
    "It hears news with the version they were applied at, and nothing the context takes outside news"
  )
  func hearsOnlyNews() async throws {
    // given
    let (stack, ann) = try await stackWithPendingRename()

    // when
    let heard = await stack.sync.perform { context in
      let mark = context.startServerTrail(of: User.self, id: ann.id)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Settled" }
      context.news = .version(7)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Theirs" }
      context.news = .unversioned
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Read" }
      context.news = nil
      defer { context.stopServerTrail(of: User.self, id: ann.id, from: mark) }
      return context.serverTrail(of: User.self, id: ann.id, from: mark)
    }

    // then
    #expect(heard.map(\.value.name) == ["Theirs", "Read"])
    #expect(heard.map(\.version) == [7, nil])
  }

  @Test(
    "Each listener gets only what was heard after its own mark, whichever ends first",
    arguments: [true, false])
  func overlappingMarks(earlierEndsFirst: Bool) async throws {
    // given
    let (stack, ann) = try await stackWithPendingRename()

    // when
    let (earlier, later) = await stack.sync.perform { context in
      context.news = .version(1)
      let first = context.startServerTrail(of: User.self, id: ann.id)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "A" }
      let second = context.startServerTrail(of: User.self, id: ann.id)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "B" }
      if earlierEndsFirst {
        let earlier: [User] = context.endServerTrail(of: User.self, id: ann.id, from: first)
        context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "C" }
        return (earlier, context.endServerTrail(of: User.self, id: ann.id, from: second))
      }
      let later: [User] = context.endServerTrail(of: User.self, id: ann.id, from: second)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "C" }
      return (context.endServerTrail(of: User.self, id: ann.id, from: first), later)
    }

    // then
    #expect(earlier.map(\.name) == (earlierEndsFirst ? ["A", "B"] : ["A", "B", "C"]))
    #expect(later.map(\.name) == (earlierEndsFirst ? ["B", "C"] : ["B"]))
  }

  @Test("It keeps nothing heard while nobody listens, and nothing once every listener ended")
  func nothingKeptWithoutListeners() async throws {
    // given
    let (stack, ann) = try await stackWithPendingRename()

    // when
    let (heard, endedAgain) = await stack.sync.perform { context in
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Before" }
      let ended = context.startServerTrail(of: User.self, id: ann.id)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "During" }
      _ = context.endServerTrail(of: User.self, id: ann.id, from: ended)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "After" }
      let mark = context.startServerTrail(of: User.self, id: ann.id)
      let heard: [User] = context.endServerTrail(of: User.self, id: ann.id, from: mark)
      let again: [User] = context.endServerTrail(of: User.self, id: ann.id, from: ended)
      return (heard, again)
    }

    // then
    #expect(heard.isEmpty)
    #expect(endedAgain.isEmpty)
  }

  @Test("A server value equal to the last synchronised one is not heard as a change")
  func unchangedValueIsNotHeard() async throws {
    // given
    let (stack, ann) = try await stackWithPendingRename()

    // when
    let heard = await stack.sync.perform { context in
      let mark = context.startServerTrail(of: User.self, id: ann.id)
      context.updateLastSynchronised(User.self, id: ann.id) { $0.name = "Ann" }
      return context.endServerTrail(of: User.self, id: ann.id, from: mark)
    }

    // then
    #expect(heard.isEmpty)
  }
}
