import CourierAPI

/// What `Tools/simulate` was asked to do: which seeds to run, how each schedule is drawn and
/// run, and what to print.
///
/// The flags that change a run are also printed back by ``SimulationOptions/replayCommand(seed:)``,
/// so that a failing seed found with any of them replays with one command.
public struct SimulationCommandLine: Sendable {
  /// The one seed to replay, when `--seed` was given.
  public var seed: UInt64?
  /// How many consecutive seeds to run when no single seed is replayed (`--seeds`).
  public var seeds = 100
  /// The first of those seeds (`--from`).
  public var first: UInt64 = 1
  /// Whether to shorten a failing schedule of the replayed seed (`--shrink`).
  public var shrink = false
  /// Whether to print every request of the replayed seed (`--verbose`).
  public var verbose = false
  /// Whether to print the help text and stop.
  public var help = false
  /// Whether to run three devices of two users against one backend (`--devices`), with
  /// ``DeviceSimulator``, instead of one client.
  public var devices = false
  /// How every schedule is drawn and run.
  public var options = SimulationOptions()

  /// Reads the arguments after the command's name.
  ///
  /// - Throws: ``SimulationCommandLineError`` naming the argument that is wrong.
  public init(arguments: [String]) throws(SimulationCommandLineError) {
    var iterator = arguments.makeIterator()
    func number(after option: String, from lowest: UInt64 = 0) throws(SimulationCommandLineError)
      -> UInt64
    {
      guard let text = iterator.next(), let value = UInt64(text), value >= lowest else {
        throw .invalidValue(option, needs: "a whole number from \(lowest)")
      }
      return value
    }
    func count(after option: String, from lowest: UInt64) throws(SimulationCommandLineError)
      -> Int
    {
      let value = try number(after: option, from: lowest)
      guard let count = Int(exactly: value) else {
        throw .invalidValue(option, needs: "a whole number up to \(Int.max)")
      }
      return count
    }
    while let argument = iterator.next() {
      switch argument {
      case "--seed": seed = try number(after: argument)
      case "--seeds": seeds = try count(after: argument, from: 0)
      case "--from": first = try number(after: argument)
      case "--steps": options.steps = try count(after: argument, from: 0)
      case "--concurrency": options.maxConcurrentRequests = try count(after: argument, from: 1)
      case "--in-flight": options.maximumRequestsInFlight = try count(after: argument, from: 1)
      case "--page-size":
        let size = try count(after: argument, from: 1)
        guard Paging.sizes.contains(size) else {
          throw .invalidValue(
            argument, needs: "a whole number from 1 to \(Paging.sizes.upperBound)")
        }
        options.pageSize = size
      case "--shrink": shrink = true
      case "--no-faults": options.faults = false
      case "--no-restarts": options.restarts = false
      case "--no-refusals": options.refusals = false
      case "--no-removals": options.removals = false
      case "--no-rejoins": options.rejoins = false
      case "--no-contact-renames": options.contactRenames = false
      case "--no-other-device": options.otherDevice = false
      case "--no-held-answers": options.heldAnswers = false
      case "--no-expiries": options.expiries = false
      case "--no-sign-outs": options.signOuts = false
      case "--no-connection-changes": options.connectionChanges = false
      case "--no-member-additions": options.memberAdditions = false
      case "--no-remote-deletions": options.remoteDeletions = false
      case "--no-deletions-elsewhere": options.deletionsElsewhere = false
      case "--no-store-refusals": options.storeRefusals = false
      // On by default since 2026-11-24; replay commands printed before still name it.
      case "--held-answers": options.heldAnswers = true
      case "--in-memory": options.durableStore = false
      case "--devices": devices = true
      case "--verbose": verbose = true
      case "--trace": options.trace = true
      case "--help", "-h": help = true
      default: throw .unknownArgument(argument)
      }
    }
  }

  /// The help text.
  public static let usage = """
    usage: Tools/simulate [--seed N [--shrink] | --seeds N [--from N]] [--steps K]
                          [--concurrency N] [--in-flight N] [--page-size N]
                          [--no-faults] [--no-restarts] [--no-refusals]
                          [--no-removals] [--no-rejoins] [--no-contact-renames]
                          [--no-other-device] [--no-held-answers] [--no-expiries]
                          [--no-sign-outs] [--no-connection-changes]
                          [--no-member-additions] [--no-remote-deletions]
                          [--no-deletions-elsewhere] [--no-store-refusals] [--in-memory]
                          [--verbose] [--trace]
       Tools/simulate --devices [--seed N | --seeds N [--from N]] [--steps K]

    Runs the real sync engine, strategies, model stack and fake backend through seeded
    schedules of edits, remote changes, faults and restarts, checking the sync promise after
    every step. --seed replays one seed (and --shrink shortens its failing schedule); --seeds
    runs that many, from --from (default 1). Each schedule has --steps steps (default 40), and
    the client sends up to --concurrency requests at once (default 3), its engine lets up to
    --in-flight out at once (default: the engine's own), and it asks for
    notifications, connections and conversations --page-size at a time (1 to 500, default
    100; small pages put answers, news and faults between the pages of one pull).
    --no-refusals draws schedules without refusals, as seeds found before 2026-11-23 need;
    --no-removals without the self user removed from groups, as seeds found before such
    removals were drawn need; --no-rejoins without the self user added back to groups, as
    seeds found before such additions were drawn need; --no-contact-renames without contacts
    renaming themselves, as seeds found before 2026-11-24 need; --no-other-device without the
    self user renaming themselves on another device, as seeds found before such renames were
    drawn need; --no-held-answers without
    the backend holding answers on their way back, as seeds found before they were on by
    default need (--held-answers, which turned them on then, is still read); --no-expiries
    without the backend forgetting its older notifications, as seeds found before such
    expiries were drawn need; --no-sign-outs without the backend answering 401, as seeds
    found before such sign-outs were drawn need; --no-connection-changes without the self
    user blocking, unblocking, ignoring or cancelling connections and contacts withdrawing
    requests, --no-member-additions without members adding contacts to groups,
    --no-remote-deletions without contacts deleting their messages, and
    --no-deletions-elsewhere without the self user deleting theirs on another device, as seeds
    found before those steps were drawn need; --no-store-refusals without the store refusing
    saves, as seeds found before 2026-11-24's evening need. --trace prints
    every step, request and event of the run. A failing seed's report names the command that
    replays it.

    --devices runs three real clients instead (two devices of the self user and one of Ann,
    each with its own store, engine, network and restarts) against one backend, editing the
    same group and names; each must end agreeing with the backend, and the backend must never
    have applied a change of one device twice. It takes --seed, --seeds, --from, --steps and
    --trace; the other options are the one-client simulator's.
    """
}

/// Why `Tools/simulate`'s arguments were refused.
public enum SimulationCommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
  /// An argument the command does not know.
  case unknownArgument(String)
  /// An option without the value it needs: the option, and what it needs.
  case invalidValue(String, needs: String)

  /// Says what was wrong.
  public var description: String {
    switch self {
    case .unknownArgument(let argument): "unknown argument '\(argument)'"
    case .invalidValue(let option, let expected): "\(option) needs \(expected)"
    }
  }
}

extension SimulationOptions {
  /// The `Tools/simulate` flags that draw and run schedules as these options do: the schedule
  /// length, and every option that is not at its default.
  ///
  /// Strategies and the request limit have no flag; a run that changes them replays from code.
  public var commandLineFlags: [String] {
    let defaults = SimulationOptions()
    var flags = ["--steps", "\(steps)"]
    if maxConcurrentRequests != defaults.maxConcurrentRequests {
      flags += ["--concurrency", "\(maxConcurrentRequests)"]
    }
    if let maximumRequestsInFlight {
      flags += ["--in-flight", "\(maximumRequestsInFlight)"]
    }
    if pageSize != defaults.pageSize { flags += ["--page-size", "\(pageSize)"] }
    // Each of these is on by default, and its flag turns it off.
    let switches: [(isOn: Bool, flag: String)] = [
      (faults, "--no-faults"), (restarts, "--no-restarts"), (refusals, "--no-refusals"),
      (removals, "--no-removals"), (rejoins, "--no-rejoins"),
      (contactRenames, "--no-contact-renames"), (otherDevice, "--no-other-device"),
      (heldAnswers, "--no-held-answers"), (expiries, "--no-expiries"),
      (signOuts, "--no-sign-outs"), (connectionChanges, "--no-connection-changes"),
      (memberAdditions, "--no-member-additions"), (remoteDeletions, "--no-remote-deletions"),
      (deletionsElsewhere, "--no-deletions-elsewhere"), (storeRefusals, "--no-store-refusals"),
      (durableStore, "--in-memory"),
    ]
    flags += switches.filter { !$0.isOn }.map(\.flag)
    return flags
  }

  /// The command that replays `seed` with these options.
  public func replayCommand(seed: UInt64) -> String {
    (["Tools/simulate", "--seed", "\(seed)"] + commandLineFlags).joined(separator: " ")
  }
}
