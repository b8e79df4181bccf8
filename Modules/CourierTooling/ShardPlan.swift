/// Which one of N shards of a test run to take (`--shard I/N`), and how the tests are dealt out:
/// every shard computes the same split, the shards are disjoint, and together they hold every
/// test.
///
/// Tests are dealt out whole (the cases of a parameterized test stay together, since a filter
/// cannot pick arguments). The split balances recorded durations: the longest test first, each to
/// the shard with the least time so far. A test without a recorded duration weighs the median of
/// the recorded ones; with no timings at all, every test weighs the same and the split balances
/// the number of tests.
public struct ShardPlan: Sendable, Equatable {
  /// The shard to take, from 1.
  public let index: Int
  /// How many shards the run is split into.
  public let count: Int

  /// Reads `I/N`, such as `2/4`.
  ///
  /// - Throws: ``ToolError/invalidShard(_:reason:)`` unless both are whole numbers and
  ///   1 ≤ I ≤ N.
  public init(_ text: String) throws(ToolError) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
      throw .invalidShard(text, reason: "write it as I/N, such as 2/4")
    }
    guard count >= 1 else { throw .invalidShard(text, reason: "N must be at least 1") }
    guard (1...count).contains(index) else {
      throw .invalidShard(text, reason: "I must be between 1 and \(count)")
    }
    self.index = index
    self.count = count
  }

  /// Every shard's tests, in listing order within each shard.
  public func shards(of tests: [TestRecord], timings: TestTimings) -> [[TestRecord]] {
    // A path is worked out from the id on each read: once per test here, not per comparison.
    let paths = tests.map(\.path)
    let known = paths.compactMap { timings.seconds[$0] }.sorted()
    let fallback = known.isEmpty ? 1 : known[known.count / 2]
    let weighed = tests.indices.map { position in
      (
        position: position, test: tests[position], path: paths[position],
        weight: timings.seconds[paths[position]] ?? fallback
      )
    }
    let order = weighed.sorted { ($0.weight, $1.path) > ($1.weight, $0.path) }
    var loads = Array(repeating: 0.0, count: count)
    var members = Array(repeating: [(position: Int, test: TestRecord)](), count: count)
    for item in order {
      var lightest = 0
      for shard in loads.indices where loads[shard] < loads[lightest] { lightest = shard }
      loads[lightest] += item.weight
      members[lightest].append((item.position, item.test))
    }
    return members.map { shard in shard.sorted { $0.position < $1.position }.map(\.test) }
  }

  /// The tests of this shard.
  public func tests(of tests: [TestRecord], timings: TestTimings) -> [TestRecord] {
    shards(of: tests, timings: timings)[index - 1]
  }
}
