// courier-simulate: runs seeded simulations of whole clients under faults (see Tools/simulate).
import Foundation
import Simulation

/// Writes one line to standard output at once, unbuffered: progress shows up even in a file.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments: SimulationCommandLine
do {
  arguments = try SimulationCommandLine(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("courier-simulate: \(error)\n".utf8))
  say(SimulationCommandLine.usage)
  exit(2)
}
if arguments.help {
  say(SimulationCommandLine.usage)
  exit(0)
}

/// Prints a failing report with everything needed to act on it.
@MainActor
func describe(_ report: SimulationReport, options: SimulationOptions, shrink: Bool) async {
  guard let violation = report.violation else { return }
  say("seed \(report.seed) broke the promise \(violation)")
  say("replay: \(options.replayCommand(seed: report.seed))")
  say("the last events:")
  for event in report.lastEvents { say("  \(event)") }
  guard shrink else { return }
  let shortest = await Shrinker.shrink(
    seed: report.seed, schedule: report.schedule, breaking: violation.invariant, options: options)
  say("shortened to \(shortest.count) of \(report.schedule.count) steps:")
  for (index, step) in shortest.enumerated() { say("  \(index + 1). \(step)") }
}

/// Runs the three-device simulation over the seeds asked for, printing each failure.
@MainActor
func runDevices(_ arguments: SimulationCommandLine) async -> Never {
  let clock = ContinuousClock()
  let start = clock.now
  let seeds =
    arguments.seed.map { [$0] }
    ?? (0..<UInt64(arguments.seeds)).map { arguments.first + $0 }
  var failing: [UInt64] = []
  var repeats = 0
  var postedAgain = 0
  for (offset, seed) in seeds.enumerated() {
    let report = await DeviceSimulator.run(
      seed: seed, steps: arguments.options.steps, trace: arguments.options.trace)
    repeats += report.repeats
    postedAgain += report.messagesPostedAgain
    if let violation = report.violation {
      failing.append(seed)
      if failing.count <= 3 || arguments.seed != nil {
        say("seed \(seed) broke the promise: \(violation)")
        say("replay: Tools/simulate --devices --seed \(seed) --steps \(arguments.options.steps)")
        for event in report.lastEvents { say("  \(event)") }
      }
    }
    if (offset + 1) % 1_000 == 0 { say("… \(offset + 1) seeds, \(failing.count) failing") }
  }
  let seconds = (clock.now - start) / .seconds(1)
  say(
    "\(seeds.count) seeds of three devices, \(failing.count) failing; answered as repeats of an "
      + "idempotency key: \(repeats); messages posted again after a restart (kept once by "
      + "their nonces): \(postedAgain) / "
      + String(format: "%.1f seeds/s in %.1f s", Double(seeds.count) / seconds, seconds))
  if failing.isEmpty {
    say("no seed broke the promise")
    exit(0)
  }
  say("failing seeds: \(failing.prefix(20).map(String.init).joined(separator: " "))")
  exit(1)
}

if arguments.devices { await runDevices(arguments) }

let clock = ContinuousClock()
let start = clock.now
var figures = SimulationFigures()
var failing: [UInt64] = []
// Seeds that passed only because a check granted an exemption: the first place to look when
// working on what the checks still exempt.
var exempted: [UInt64] = []
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
    if !report.figures.exemptions.isEmpty { exempted.append(seed) }
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
if !exempted.isEmpty {
  // Before the summary, whose last lines a recorded run keeps.
  say(
    "seeds granted an exemption (replay one with --seed N --trace): "
      + exempted.prefix(20).map(String.init).joined(separator: " ")
      + (exempted.count > 20 ? " …" : ""))
}
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
