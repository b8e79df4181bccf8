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
    let counted = Locked<[Int]>([])

    // when
    let failing = await DedicatedThread.run { _ in
      ModelSearch.run(first: 11, count: 6, steps: 40, threads: threads) { finished in
        counted.withLock { $0.append(finished) }
      }
    }

    // then
    #expect(failing.isEmpty)
    #expect(counted.withLock { $0.sorted() } == Array(1...6))
  }

  @Test(
    "It returns the runs that broke a rule, by seed, each with its violation",
    arguments: BrokenClient.all)
  func returnsFailingRuns(client: BrokenClient) async {
    // given
    let strategies = client.strategies

    // when
    let failing = await DedicatedThread.run { _ in
      ModelSearch.run(first: 1, count: 20, steps: 200, threads: 2, strategies: strategies)
    }

    // then
    #expect(!failing.isEmpty)
    #expect(failing.map(\.seed) == failing.map(\.seed).sorted())
    #expect(failing.contains { $0.violation?.rule.contains(client.brokenRule) == true })
    #expect(failing.allSatisfy { (1...20).contains($0.seed) && $0.violation != nil })
  }
}
