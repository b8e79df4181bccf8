import CourierTooling
import TestSupport
import Testing

@Suite("ShardPlan", .tags(.tools), .timeBudget(.seconds(10)))
struct ShardPlanTests {
  static func listing(_ names: [String]) -> [TestRecord] {
    names.map {
      TestRecord(id: "ATests.Suite/\($0)()/A.swift:1:1", displayName: $0, kind: .function)
    }
  }

  @Test(
    "It reads I/N and refuses what is not a shard of the run",
    arguments: zip(
      ["2/4", "1/1", "0/3", "4/3", "3", "a/2", "1/0", "1/2/3"],
      [
        "2 of 4", "1 of 1", "I must be between 1 and 3", "I must be between 1 and 3",
        "write it as I/N", "write it as I/N", "N must be at least 1", "write it as I/N",
      ]))
  func parsing(text: String, expected: String) {
    // given
    let input = text

    // when
    let outcome = Result { () throws(ToolError) in try ShardPlan(input) }

    // then
    switch outcome {
    case .success(let plan): #expect("\(plan.index) of \(plan.count)" == expected)
    case .failure(let error): #expect(error.description.contains(expected), "\(error)")
    }
  }

  @Test("Without timings it balances the number of tests and keeps listing order")
  func byCount() throws {
    // given
    let tests = Self.listing(["a", "b", "c", "d", "e"])

    // when
    let shards = try ShardPlan("1/2").shards(of: tests, timings: TestTimings())

    // then
    #expect(shards.map(\.count).sorted() == [2, 3])
    for shard in shards {
      #expect(shard == tests.filter { shard.contains($0) })
    }
  }

  @Test("With timings it puts the long test alone and the short ones together")
  func byTime() throws {
    // given
    let tests = Self.listing(["long", "s1", "s2", "s3"])
    let timings = TestTimings(seconds: [
      "ATests.Suite/long()": 9, "ATests.Suite/s1()": 1, "ATests.Suite/s2()": 1,
      "ATests.Suite/s3()": 1,
    ])

    // when
    let shards = try ShardPlan("2/2").shards(of: tests, timings: timings)

    // then
    #expect(shards.map { $0.map(\.displayName) } == [["long"], ["s1", "s2", "s3"]])
  }

  @Test(
    "For any listing and timings the shards are disjoint, hold every test, agree across shards and stay within the longest test of an even split",
    .tags(.generated), arguments: 0..<200)
  func properties(seed: UInt64) throws {
    // given
    var random = SeededRandomNumberGenerator(seed: seed)
    let tests = Self.listing((0..<Int.random(in: 0...60, using: &random)).map { "t\($0)" })
    var seconds: [String: Double] = [:]
    for test in tests where Bool.random(using: &random) {
      seconds[test.path] = Double(Int.random(in: 0...5_000, using: &random)) / 1000
    }
    let timings = TestTimings(seconds: seconds)
    let count = Int.random(in: 1...7, using: &random)

    // when
    let perShard = try (1...count).map { index in
      try ShardPlan("\(index)/\(count)").tests(of: tests, timings: timings)
    }

    // then
    let all = perShard.flatMap { $0 }
    #expect(all.count == tests.count, "seed \(seed)")
    #expect(Set(all) == Set(tests), "seed \(seed)")
    #expect(perShard == (try ShardPlan("1/\(count)").shards(of: tests, timings: timings)))
    let known = seconds.values.sorted()
    let fallback = known.isEmpty ? 1 : known[known.count / 2]
    let weights = tests.map { seconds[$0.path] ?? fallback }
    let loads = perShard.map { shard in shard.reduce(0) { $0 + (seconds[$1.path] ?? fallback) } }
    let bound = weights.reduce(0, +) / Double(count) + (weights.max() ?? 0) + 1e-9
    #expect(loads.allSatisfy { $0 <= bound }, "seed \(seed): loads \(loads), bound \(bound)")
  }
}
