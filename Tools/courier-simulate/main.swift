// courier-simulate: runs seeded simulations of whole clients under faults (see Tools/simulate).
import Foundation
import Simulation

struct Arguments {
  var seed: UInt64?
  var seeds = 100
  var first: UInt64 = 1
  var shrink = false
  var verbose = false
  var options = SimulationOptions()

  init(_ arguments: [String]) throws {
    var iterator = arguments.makeIterator()
    func number(_ option: String) throws -> UInt64 {
      guard let text = iterator.next(), let value = UInt64(text) else {
        throw UsageError(message: "\(option) needs a whole number")
      }
      return value
    }
    while let argument = iterator.next() {
      switch argument {
      case "--seed": seed = try number(argument)
      case "--seeds": seeds = Int(try number(argument))
      case "--from": first = try number(argument)
      case "--steps": options.steps = Int(try number(argument))
      case "--shrink": shrink = true
      case "--no-faults": options.faults = false
      case "--no-restarts": options.restarts = false
      case "--no-refusals": options.refusals = false
      case "--no-removals": options.removals = false
      case "--no-rejoins": options.rejoins = false
      case "--in-memory": options.durableStore = false
      case "--verbose": verbose = true
      case "--trace": options.trace = true
      case "--help", "-h": throw UsageError(message: nil)
      default: throw UsageError(message: "unknown argument '\(argument)'")
      }
    }
  }
}

struct UsageError: Error {
  let message: String?
  static let usage = """
    usage: Tools/simulate [--seed N [--shrink] | --seeds N [--from N]] [--steps K]
                          [--no-faults] [--no-restarts] [--no-refusals] [--no-removals]
                          [--no-rejoins] [--in-memory] [--verbose]

    Runs the real sync engine, strategies, model stack and fake backend through seeded
    schedules of edits, remote changes, faults and restarts, checking the sync promise after
    every step. --seed replays one seed (and --shrink shortens its failing schedule); --seeds
    runs that many, from --from (default 1). Each schedule has --steps steps (default 40).
    --no-refusals draws schedules without refusals, as seeds found before 2026-11-23 need;
    --no-removals without the self user removed from groups, as seeds found before such
    removals were drawn need; --no-rejoins without the self user added back to groups, as
    seeds found before such additions were drawn need.
    """
}

/// Writes one line to standard output at once, unbuffered: progress shows up even in a file.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments: Arguments
do {
  arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
  if let message = error.message {
    FileHandle.standardError.write(Data("courier-simulate: \(message)\n".utf8))
  }
  say(UsageError.usage)
  exit(error.message == nil ? 0 : 2)
}

/// Prints a failing report with everything needed to act on it.
@MainActor
func describe(_ report: SimulationReport, options: SimulationOptions, shrink: Bool) async {
  guard let violation = report.violation else { return }
  say("seed \(report.seed) broke the promise \(violation)")
  let flags =
    (options.refusals ? "" : " --no-refusals") + (options.removals ? "" : " --no-removals")
    + (options.rejoins ? "" : " --no-rejoins")
  say("replay: Tools/simulate --seed \(report.seed) --steps \(options.steps)\(flags)")
  say("the last events:")
  for event in report.lastEvents { say("  \(event)") }
  guard shrink else { return }
  let shortest = await Shrinker.shrink(
    seed: report.seed, schedule: report.schedule, breaking: violation.invariant, options: options)
  say("shortened to \(shortest.count) of \(report.schedule.count) steps:")
  for (index, step) in shortest.enumerated() { say("  \(index + 1). \(step)") }
}

let clock = ContinuousClock()
let start = clock.now
var figures = SimulationFigures()
var failing: [UInt64] = []
if let seed = arguments.seed {
  let report = await Simulator.run(seed: seed, options: arguments.options)
  figures.add(report.figures)
  if arguments.verbose { for request in report.requests { say(request) } }
  if report.violation != nil {
    failing.append(seed)
    await describe(report, options: arguments.options, shrink: arguments.shrink)
  }
} else {
  for offset in 0..<arguments.seeds {
    let seed = arguments.first + UInt64(offset)
    let report = await Simulator.run(seed: seed, options: arguments.options)
    figures.add(report.figures)
    if report.violation != nil {
      failing.append(seed)
      if failing.count <= 3 { await describe(report, options: arguments.options, shrink: false) }
    }
    if (offset + 1) % 1_000 == 0 {
      say("… \(offset + 1) seeds, \(failing.count) failing")
    }
  }
}
let elapsed = clock.now - start
let seconds = elapsed / .seconds(1)
say(figures.summary)
say(
  String(
    format: "%.1f seeds/s (%.0f seeds/min) in %.1f s", Double(figures.seeds) / seconds,
    Double(figures.seeds) / seconds * 60, seconds))
if failing.isEmpty {
  say("no seed broke the promise")
  exit(0)
}
say(
  "failing seeds: \(failing.prefix(20).map(String.init).joined(separator: " "))\(failing.count > 20 ? " …" : "")"
)
exit(1)
