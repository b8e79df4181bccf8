import Foundation
import ModelsTestSupport
import Testing

@Suite("ModelFactory", .tags(.testSupport, .models), .courier(timeBudget: .seconds(5)))
@MainActor
struct ModelFactoryTests {
  @Test("Its objects pass every rule of a save as they are")
  func validDefaults() throws {
    // given
    let make = ModelFactory()
    let me = make.selfUser()
    let other = make.user()
    let group = make.conversation(creator: me, participants: [other])
    let objects: [any ModelObject] = [
      me, other, group, make.connection(from: me, to: other), make.message(in: group, from: me),
    ]
    let context = ModelStack.forTesting().ui.context

    // when
    for object in objects { try insert(object, into: context) }
    let changes = try context.save()

    // then
    #expect(changes.count == objects.count)
    #expect(group.participantIDs == [me.id, other.id])
  }

  @Test("It draws ids from the test's UUID source, so a replay gives the same ids")
  func deterministicIDs() {
    // given
    let seed = UUIDSource.current.seed ?? 0

    // when
    let first = ModelFactory(uuids: .seeded(seed)).user()
    let second = ModelFactory(uuids: .seeded(seed)).user()

    // then
    #expect(first == second)
  }

  @Test("Messages are stamped one second apart, in the order they are made")
  func messageTimes() {
    // given
    let make = ModelFactory()
    let me = make.selfUser()
    let group = make.conversation(creator: me)

    // when
    let times = (0..<3).map { _ in make.message(in: group, from: me).localTime }

    // then
    #expect(zip(times, times.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 1 })
  }

  private func insert(_ object: any ModelObject, into context: ModelContext) throws {
    try context.insert(object)
  }
}

@Suite("ModelStack.forTesting", .tags(.testSupport, .models), .courier(timeBudget: .seconds(5)))
struct ModelStackForTestingTests {
  @Test("The objects start out synchronised: both contexts see them and nothing is to push")
  func startsSynchronised() async {
    // given
    let me = ModelFactory().selfUser()

    // when
    let stack = ModelStack.forTesting([me])

    // then
    let (seen, pending) = await stack.sync.perform {
      ($0.object(User.self, id: me.id), $0.localChanges(of: User.self))
    }
    #expect(seen == me)
    #expect(pending.isEmpty)
    #expect(await MainActor.run { stack.ui.context.object(User.self, id: me.id) } == me)
  }

  @Test("Each stack uses the test's work tracker, so quiescence covers its merges")
  func usesTheTestTracker() {
    // when
    let stack = ModelStack.forTesting()

    // then
    #expect(stack.tracker === WorkTracker.current)
  }
}
