import TestSupport
import Testing
import UpstreamModelCheck

@Suite("ModelRun", .tags(.upstreamModelCheck, .sync, .generated), .timeBudget(.seconds(60)))
struct ModelRunTests {
  @Test("A seed runs the same steps to the same end every time", arguments: [3, 1_206] as [UInt64])
  func replaysAlike(seed: UInt64) async {
    // given
    let steps = 200

    // when
    let (first, second) = await DedicatedThread.run { _ in
      (ModelRun(seed: seed, steps: steps), ModelRun(seed: seed, steps: steps))
    }

    // then
    #expect(first.steps.map(\.description) == second.steps.map(\.description))
    #expect(first.steps.count == steps)
    #expect(first.violation?.description == second.violation?.description)
  }

  @Test("A run that kept the promise has no violation and an empty report")
  func keptPromise() async {
    // given
    let seed: UInt64 = 5

    // when
    let run = await DedicatedThread.run { _ in ModelRun(seed: seed, steps: 100) }

    // then
    #expect(run.violation == nil)
    #expect(run.report.isEmpty)
  }

  @Test(
    "The shortest failing prefix of a broken client's seed still fails, in no more steps, and its report lists them",
    arguments: BrokenClient.all)
  func shortestFailingPrefix(client: BrokenClient) async throws {
    // given
    let strategies = client.strategies
    let failing = await DedicatedThread.run { _ in
      (1...20 as ClosedRange<UInt64>).lazy.map {
        ModelRun(
          seed: $0, steps: 200, strategies: strategies)
      }.first { $0.violation != nil }
    }
    let run = try #require(failing)

    // when
    let shortest = await DedicatedThread.run { _ in
      ModelRun.shortestFailingPrefix(
        seed: run.seed, failingAfter: 200, strategies: strategies)
    }

    // then
    #expect(shortest.violation != nil)
    #expect(shortest.steps.count <= run.steps.count)
    #expect(shortest.report.hasPrefix("seed \(run.seed) broke the promise"))
    #expect(
      shortest.report.contains(
        "\(shortest.steps.count). \(shortest.steps.last.map(\.description) ?? "")"))
  }
}
