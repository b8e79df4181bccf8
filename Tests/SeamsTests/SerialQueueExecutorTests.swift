import Dispatch
import Foundation
import Seams
import TestSupport
import Testing

@Suite("SerialQueueExecutor", .tags(.seams), .courier(timeBudget: .seconds(5)))
struct SerialQueueExecutorTests {
  @Test("An actor on it runs its jobs one at a time, in the order they were sent")
  func serialInOrder() async {
    // given
    let actor = Counter(execution: .own)

    // when
    await withTaskGroup(of: Void.self) { group in
      for value in 0..<200 { group.addTask { await actor.append(value) } }
    }

    // then
    let values = await actor.values
    #expect(values.count == 200)
    #expect(Set(values).count == 200)
    #expect(await actor.maximumOverlap == 1)
  }
}

@Suite("ActorExecution", .tags(.seams), .courier(timeBudget: .seconds(5)))
struct ActorExecutionTests {
  @Test("An actor on its own runs on its own serial queue, not where it was called from")
  func ownQueue() async {
    // given
    let actor = Counter(execution: .own)

    // when
    let inside = await actor.isOnOwnQueue()

    // then
    #expect(inside == true)
    #expect(actor.executorQueueIsCurrent == false)
  }

  @Test("An actor made for the main actor shares its executor: it may use main-actor state at once")
  func sharesMainActor() async {
    // given
    let actor = Counter(execution: .mainActor)

    // when
    let seen = await actor.readMainActorState()

    // then
    #expect(seen == "main")
  }
}

/// State only the main actor may touch.
@MainActor
private enum MainActorState {
  static let value = "main"
}

/// An actor on a chosen executor that notes what it was given and how many jobs ever ran at
/// once.
private actor Counter {
  private let executor: ChosenExecutor
  private(set) var values: [Int] = []
  private(set) var maximumOverlap = 0
  private let running = Locked(0)

  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

  init(execution: ActorExecution) {
    executor = execution.makeExecutor(label: "counter")
  }

  func append(_ value: Int) {
    let overlap = running.withLock { count in
      count += 1
      return count
    }
    maximumOverlap = max(maximumOverlap, overlap)
    values.append(value)
    running.withLock { $0 -= 1 }
  }

  func isOnOwnQueue() -> Bool? { executor.queue?.isCurrent }

  nonisolated var executorQueueIsCurrent: Bool? { executor.queue?.isCurrent }

  /// Reads main-actor state synchronously; traps unless the actor runs on the main actor.
  func readMainActorState() -> String {
    MainActor.assumeIsolated { MainActorState.value }
  }
}

@Suite("MainQueueTaskExecutor", .tags(.seams), .courier(timeBudget: .seconds(5)))
struct MainQueueTaskExecutorTests {
  @Test("Its jobs and the main actor's run in one serial order: the order they were started")
  func oneOrderWithTheMainActor() async {
    // given
    let order = Locked<[String]>([])

    // when: jobs of the executor and of the main actor, started alternately from one thread
    var tasks: [Task<Void, Never>] = []
    for index in 0..<4 {
      tasks.append(
        Task(executorPreference: MainQueueTaskExecutor.shared) {
          await note("executor \(index)", in: order)
        })
      tasks.append(Task { @MainActor in order.withLock { $0.append("main \(index)") } })
    }
    for task in tasks { await task.value }

    // then
    #expect(
      order.withLock { $0 } == (0..<4).flatMap { ["executor \($0)", "main \($0)"] })
    #expect(MainQueueTaskExecutor.shared.enqueuedJobs >= 4)
  }

  @Test("The preference set in the task-local reaches the work tracker's jobs")
  func trackerJobsFollowThePreference() async {
    // given
    let tracker = WorkTracker()
    let order = Locked<[String]>([])
    let before = MainQueueTaskExecutor.shared.enqueuedJobs

    // when
    ExecutorPreference.$current.withValue(MainQueueTaskExecutor.shared) {
      for index in 0..<3 {
        tracker.run("note") { await note("job \(index)", in: order) }
      }
    }
    _ = await tracker.settle(within: .seconds(2))

    // then
    #expect(order.withLock { $0 } == ["job 0", "job 1", "job 2"])
    #expect(MainQueueTaskExecutor.shared.enqueuedJobs >= before + 3)
  }
}

/// Notes `entry` from nonisolated code, which runs on the executor its task prefers.
private func note(_ entry: String, in order: Locked<[String]>) async {
  order.withLock { $0.append(entry) }
}
