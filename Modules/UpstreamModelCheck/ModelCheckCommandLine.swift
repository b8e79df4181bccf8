import Foundation

/// What `Tools/model-check` was asked to do: replay one seed, or search a range of seeds, with
/// sequences of how many steps, on how many threads.
public struct ModelCheckCommandLine: Sendable, Hashable {
  /// How many steps a sequence takes before draining, unless `--steps` says otherwise: as many
  /// as in the normal test suite.
  public static let defaultSteps = 200

  /// The one seed to replay (`--seed`), or `nil` to search a range.
  public var seed: UInt64?
  /// How many consecutive seeds to search (`--seeds`).
  public var seeds = 2_000
  /// The first seed of the range (`--from`).
  public var first: UInt64 = 1
  /// How many steps each sequence takes before draining (`--steps`).
  public var steps = defaultSteps
  /// How many threads share the seeds (`--threads`); one per core unless told.
  public var threads = ProcessInfo.processInfo.activeProcessorCount
  /// Whether to print the help text and stop (`--help`).
  public var help = false

  /// Reads the arguments after the command's name.
  ///
  /// - Throws: ``ModelCheckCommandLineError`` naming the argument that is wrong.
  public init(arguments: [String]) throws(ModelCheckCommandLineError) {
    var remaining = arguments[...]
    func value(of option: String, from lowest: UInt64) throws(ModelCheckCommandLineError)
      -> UInt64
    {
      guard let text = remaining.popFirst(), let number = UInt64(text), number >= lowest else {
        throw .invalidValue(option, needs: "a whole number from \(lowest)")
      }
      return number
    }
    func count(of option: String, from lowest: UInt64) throws(ModelCheckCommandLineError) -> Int {
      guard let number = Int(exactly: try value(of: option, from: lowest)) else {
        throw .invalidValue(option, needs: "a whole number up to \(Int.max)")
      }
      return number
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--seed": seed = try value(of: argument, from: 0)
      case "--seeds": seeds = try count(of: argument, from: 1)
      case "--from": first = try value(of: argument, from: 0)
      case "--steps": steps = try count(of: argument, from: 0)
      case "--threads": threads = try count(of: argument, from: 1)
      case "--help", "-h": help = true
      default: throw .unknownArgument(argument)
      }
    }
    guard first.addingReportingOverflow(UInt64(seeds)).overflow == false else {
      throw .invalidValue("--from", needs: "a range of seeds that ends below 2^64")
    }
  }

  /// The command that replays `seed` with these arguments' sequence length.
  public func replayCommand(seed: UInt64) -> String {
    let length = steps == Self.defaultSteps ? "" : " --steps \(steps)"
    return "Tools/model-check --seed \(seed)\(length)"
  }

  /// The help text.
  public static let usage = """
    usage: Tools/model-check [--seed N | --seeds N [--from N]] [--steps K] [--threads T]

    Runs the model check of the upstream tracker, the sequences of the model test in the
    normal suite, built for release. --seed replays one seed and prints the shortest prefix of
    its sequence that still breaks a rule; --seeds runs that many seeds (default 2000) from
    --from (default 1), on --threads threads (default: one per core). Each sequence takes
    --steps steps (default 200) before draining. A failing seed's report names the command
    that replays it; the exit status is 1 when a seed failed, 2 for bad arguments.
    """
}
