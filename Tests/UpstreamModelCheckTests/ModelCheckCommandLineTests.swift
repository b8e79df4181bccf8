import TestSupport
import Testing
import UpstreamModelCheck

@Suite("ModelCheckCommandLine", .tags(.upstreamModelCheck, .tools), .timeBudget(.seconds(5)))
struct ModelCheckCommandLineTests {
  /// The fields a reading is compared on: seed, seeds, first, steps, threads, help.
  struct Reading: Hashable {
    var seed: UInt64?
    var seeds: Int
    var first: UInt64
    var steps: Int
    var threads: Int?
    var help = false
  }

  static func reading(of line: ModelCheckCommandLine, threads: Bool) -> Reading {
    Reading(
      seed: line.seed, seeds: line.seeds, first: line.first, steps: line.steps,
      threads: threads ? line.threads : nil, help: line.help)
  }

  @Test(
    "It reads each option into its field and leaves the others at their defaults",
    arguments: zip(
      [
        [], ["--seed", "481"], ["--seeds", "20000", "--from", "2001"],
        ["--steps", "1000", "--threads", "3"], ["-h"],
      ],
      [
        Reading(seed: nil, seeds: 2_000, first: 1, steps: 200),
        Reading(seed: 481, seeds: 2_000, first: 1, steps: 200),
        Reading(seed: nil, seeds: 20_000, first: 2_001, steps: 200),
        Reading(seed: nil, seeds: 2_000, first: 1, steps: 1_000, threads: 3),
        Reading(seed: nil, seeds: 2_000, first: 1, steps: 200, help: true),
      ]))
  func readsOptions(arguments: [String], expected: Reading) throws {
    // given
    let namesThreads = arguments.contains("--threads")

    // when
    let line = try ModelCheckCommandLine(arguments: arguments)

    // then
    #expect(Self.reading(of: line, threads: namesThreads) == expected)
  }

  @Test(
    "It refuses an unknown argument or a bad value, naming it",
    arguments: zip(
      [
        ["--shrink"], ["--seeds", "0"], ["--seed"], ["--steps", "-1"], ["--threads", "0"],
        ["--from", "18446744073709551615", "--seeds", "2"],
      ],
      [
        ModelCheckCommandLineError.unknownArgument("--shrink"),
        .invalidValue("--seeds", needs: "a whole number from 1"),
        .invalidValue("--seed", needs: "a whole number from 0"),
        .invalidValue("--steps", needs: "a whole number from 0"),
        .invalidValue("--threads", needs: "a whole number from 1"),
        .invalidValue("--from", needs: "a range of seeds that ends below 2^64"),
      ]))
  func refusesBadArguments(arguments: [String], expected: ModelCheckCommandLineError) {
    // given
    let line = arguments

    // when
    let error = #expect(throws: ModelCheckCommandLineError.self) {
      try ModelCheckCommandLine(arguments: line)
    }

    // then
    #expect(error == expected)
    #expect(error?.description.contains(arguments[0]) == true)
  }

  @Test(
    "Its replay command names the sequence length only when it is not the default",
    arguments: zip(
      [[], ["--steps", "1000", "--seeds", "50"]],
      ["Tools/model-check --seed 7", "Tools/model-check --seed 7 --steps 1000"]))
  func replayCommand(arguments: [String], expected: String) throws {
    // given
    let line = try ModelCheckCommandLine(arguments: arguments)

    // when
    let command = line.replayCommand(seed: 7)

    // then
    #expect(command == expected)
  }
}
