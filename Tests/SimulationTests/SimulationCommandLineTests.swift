import Simulation
import TestSupport
import Testing

@Suite("SimulationCommandLine", .tags(.simulation, .tools), .timeBudget(.seconds(5)))
struct SimulationCommandLineTests {
  @Test("It reads every option")
  func readsEveryOption() throws {
    // given
    let arguments = [
      "--seed", "42", "--seeds", "500", "--from", "9001", "--steps", "120", "--concurrency", "6",
      "--in-flight", "2", "--page-size", "2", "--shrink", "--no-faults", "--no-restarts",
      "--no-refusals",
      "--no-removals",
      "--no-rejoins", "--no-contact-renames", "--no-held-answers", "--no-store-refusals",
      "--in-memory", "--verbose", "--trace",
    ]

    // when
    let command = try SimulationCommandLine(arguments: arguments)

    // then
    #expect(command.seed == 42)
    #expect(command.seeds == 500)
    #expect(command.first == 9001)
    #expect(command.shrink && command.verbose && !command.help)
    let options = command.options
    #expect(options.steps == 120)
    #expect(options.maxConcurrentRequests == 6)
    #expect(options.maximumRequestsInFlight == 2)
    #expect(options.pageSize == 2)
    #expect(!options.faults && !options.restarts && !options.refusals)
    #expect(!options.removals && !options.rejoins && !options.contactRenames)
    #expect(!options.heldAnswers && !options.storeRefusals)
    #expect(!options.durableStore)
    #expect(options.trace)
  }

  @Test(
    "It still reads --held-answers, which replay commands printed before they were on by default name"
  )
  func readsHeldAnswersFlag() throws {
    // when
    let command = try SimulationCommandLine(arguments: ["--no-held-answers", "--held-answers"])

    // then
    #expect(command.options.heldAnswers)
  }

  @Test("Without arguments it runs 100 seeds from 1 with the default options")
  func defaults() throws {
    // when
    let command = try SimulationCommandLine(arguments: [])

    // then
    #expect(command.seed == nil && command.seeds == 100 && command.first == 1)
    #expect(command.options.commandLineFlags == ["--steps", "40"])
  }

  /// Arguments the command refuses, and the error that names what is wrong with each.
  static let refused: [([String], SimulationCommandLineError)] = [
    (["--seed"], .invalidValue("--seed", needs: "a whole number from 0")),
    (["--seeds", "many"], .invalidValue("--seeds", needs: "a whole number from 0")),
    (["--steps", "-1"], .invalidValue("--steps", needs: "a whole number from 0")),
    (["--concurrency", "0"], .invalidValue("--concurrency", needs: "a whole number from 1")),
    (["--in-flight", "0"], .invalidValue("--in-flight", needs: "a whole number from 1")),
    (["--page-size", "0"], .invalidValue("--page-size", needs: "a whole number from 1")),
    (["--page-size", "501"], .invalidValue("--page-size", needs: "a whole number from 1 to 500")),
    (["--colour"], .unknownArgument("--colour")),
  ]

  @Test("It refuses what it cannot read, naming the argument", arguments: refused)
  func refuses(_ arguments: [String], _ expected: SimulationCommandLineError) {
    // when
    let error = #expect(throws: SimulationCommandLineError.self) {
      try SimulationCommandLine(arguments: arguments)
    }

    // then
    #expect(error == expected)
  }

  /// Options with the switches flipped from their defaults in `mask` (one bit each, every one
  /// on by default), a concurrency, a page size and a schedule length that vary with it.
  static func options(mask: Int) -> SimulationOptions {
    var options = SimulationOptions(steps: 12 + mask)
    options.maxConcurrentRequests = [3, 1, 6][mask % 3]
    options.pageSize = [100, 2, 500, 37][mask % 4]
    options.faults = mask & 1 == 0
    options.restarts = mask & 2 == 0
    options.refusals = mask & 4 == 0
    options.removals = mask & 8 == 0
    options.rejoins = mask & 16 == 0
    options.durableStore = mask & 32 == 0
    options.contactRenames = mask & 64 == 0
    options.heldAnswers = mask & 128 == 0
    options.otherDevice = mask & 256 == 0
    options.expiries = mask & 512 == 0
    options.signOuts = mask & 1024 == 0
    options.connectionChanges = mask & 2048 == 0
    options.memberAdditions = mask & 4096 == 0
    options.remoteDeletions = mask & 8192 == 0
    options.deletionsElsewhere = mask & 16384 == 0
    options.storeRefusals = mask & 32768 == 0
    return options
  }

  /// How many switches ``options(mask:)`` flips.
  static let switchCount = 16

  /// Every mask with at most two switches flipped, and every mask with all but at most two:
  /// each switch alone and beside each other one, in both states, in a few hundred cases
  /// rather than every one of the 65,536 combinations.
  static let masks: [Int] = {
    let all = (1 << switchCount) - 1
    let bits = (0..<switchCount).map { 1 << $0 }
    let fewFlipped =
      [0] + bits
      + bits.indices.flatMap { first in
        bits[(first + 1)...].map { bits[first] | $0 }
      }
    return fewFlipped + fewFlipped.map { all ^ $0 }
  }()

  @Test(
    "A replay command reads back as the options that printed it, for every switch alone and in pairs, on and off",
    arguments: masks)
  func replayRoundTrip(mask: Int) throws {
    // given
    let options = Self.options(mask: mask)

    // when
    let replay = options.replayCommand(seed: 7)
    let read = try SimulationCommandLine(
      arguments: Array(replay.split(separator: " ").dropFirst().map(String.init)))

    // then
    #expect(read.seed == 7)
    #expect(read.options.steps == options.steps)
    #expect(read.options.maxConcurrentRequests == options.maxConcurrentRequests)
    #expect(read.options.pageSize == options.pageSize)
    #expect(read.options.faults == options.faults)
    #expect(read.options.restarts == options.restarts)
    #expect(read.options.refusals == options.refusals)
    #expect(read.options.removals == options.removals)
    #expect(read.options.rejoins == options.rejoins)
    #expect(read.options.contactRenames == options.contactRenames)
    #expect(read.options.heldAnswers == options.heldAnswers)
    #expect(read.options.otherDevice == options.otherDevice)
    #expect(read.options.expiries == options.expiries)
    #expect(read.options.signOuts == options.signOuts)
    #expect(read.options.connectionChanges == options.connectionChanges)
    #expect(read.options.memberAdditions == options.memberAdditions)
    #expect(read.options.remoteDeletions == options.remoteDeletions)
    #expect(read.options.deletionsElsewhere == options.deletionsElsewhere)
    #expect(read.options.storeRefusals == options.storeRefusals)
    #expect(read.options.durableStore == options.durableStore)
  }

  /// Switch masks (see ``options(mask:)``) and the replay commands they print.
  static let replays: [(Int, String)] = [
    (0, "Tools/simulate --seed 7 --steps 12"),
    (33, "Tools/simulate --seed 7 --steps 45 --page-size 2 --no-faults --in-memory"),
    (
      30,
      "Tools/simulate --seed 7 --steps 42 --page-size 500 --no-restarts --no-refusals --no-removals --no-rejoins"
    ),
    (64, "Tools/simulate --seed 7 --steps 76 --concurrency 1 --no-contact-renames"),
    (128, "Tools/simulate --seed 7 --steps 140 --concurrency 6 --no-held-answers"),
    (512, "Tools/simulate --seed 7 --steps 524 --concurrency 6 --no-expiries"),
    (1024, "Tools/simulate --seed 7 --steps 1036 --concurrency 1 --no-sign-outs"),
    (2048, "Tools/simulate --seed 7 --steps 2060 --concurrency 6 --no-connection-changes"),
    (4096, "Tools/simulate --seed 7 --steps 4108 --concurrency 1 --no-member-additions"),
    (8192, "Tools/simulate --seed 7 --steps 8204 --concurrency 6 --no-remote-deletions"),
    (16384, "Tools/simulate --seed 7 --steps 16396 --concurrency 1 --no-deletions-elsewhere"),
    (32768, "Tools/simulate --seed 7 --steps 32780 --concurrency 6 --no-store-refusals"),
  ]

  @Test(
    "A replay command names the schedule length and only the options that are not the defaults",
    arguments: replays)
  func replayCommand(mask: Int, expected: String) {
    // given
    let options = Self.options(mask: mask)

    // when
    let replay = options.replayCommand(seed: 7)

    // then
    #expect(replay == expected)
  }

  @Test("A concurrency other than the default is part of the replay command")
  func concurrencyInReplay() {
    // given
    var options = SimulationOptions(steps: 120)
    options.maxConcurrentRequests = 6

    // when
    let replay = options.replayCommand(seed: 48_001)

    // then
    #expect(replay == "Tools/simulate --seed 48001 --steps 120 --concurrency 6")
  }
}

extension SimulationCommandLineTests {
  @Test("A limit on the engine's requests in flight is part of the replay command, and read back")
  func inFlightInReplay() throws {
    // given
    var options = SimulationOptions(steps: 120)
    options.maximumRequestsInFlight = 1

    // when
    let replay = options.replayCommand(seed: 48_001)
    let read = try SimulationCommandLine(
      arguments: Array(replay.split(separator: " ").dropFirst().map(String.init)))

    // then
    #expect(replay == "Tools/simulate --seed 48001 --steps 120 --in-flight 1")
    #expect(read.options.maximumRequestsInFlight == 1)
  }
}
