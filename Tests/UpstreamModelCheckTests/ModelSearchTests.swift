import Seams
import SyncStrategies
import TestSupport
import Testing
import UpstreamModelCheck

@Suite(
  "ModelSearch", .tags(.upstreamModelCheck, .sync, .generated), .timeBudget(.seconds(60)))
struct ModelSearchTests {
  @Test(
    "It runs every seed of the range once, whatever the number of threads, and finds no failure in a real client",
    arguments: [1, 3, 50])
  func runsEverySeed(threads: Int) async {
    // given
    let seen = Locked<[(seed: UInt64, finished: Int)]>([])

    // when
    let failing = await DedicatedThread.run { _ in
      ModelSearch.run(first: 11, count: 6, steps: 40, threads: threads) { run, finished in
        seen.withLock { $0.append((run.seed, finished)) }
      }
    }

    // then
    #expect(failing.isEmpty)
    #expect(seen.withLock { $0.map(\.seed).sorted() } == Array(11...16))
    #expect(seen.withLock { $0.map(\.finished).sorted() } == Array(1...6))
  }

  @Test(
    "It returns the runs that broke a rule, by seed, each with its violation, and shows each as it ends",
    arguments: BrokenClient.all)
  func returnsFailingRuns(client: BrokenClient) async {
    // given
    let strategies = client.strategies

    let shown = Locked<[UInt64]>([])

    // when
    let failing = await DedicatedThread.run { _ in
      ModelSearch.run(
        first: 1, count: 20, steps: 200, threads: 2, strategies: strategies
      ) {
        run, _ in
        if run.violation != nil { shown.withLock { $0.append(run.seed) } }
      }
    }

    // then
    #expect(!failing.isEmpty)
    #expect(shown.withLock { $0.sorted() } == failing.map(\.seed))
    #expect(failing.map(\.seed) == failing.map(\.seed).sorted())
    #expect(failing.contains { $0.violation?.rule.contains(client.brokenRule) == true })
    #expect(failing.allSatisfy { (1...20).contains($0.seed) && $0.violation != nil })
  }
}
