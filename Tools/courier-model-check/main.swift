// courier-model-check: runs the model check of the upstream tracker (see Tools/model-check).
import Foundation
import Seams
import UpstreamModelCheck

/// Writes one line to standard output at once, unbuffered: progress shows up even in a file.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments: ModelCheckCommandLine
do {
  arguments = try ModelCheckCommandLine(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("courier-model-check: \(error)\n".utf8))
  say(ModelCheckCommandLine.usage)
  exit(2)
}
if arguments.help {
  say(ModelCheckCommandLine.usage)
  exit(0)
}

let clock = ContinuousClock()
let start = clock.now
if let seed = arguments.seed {
  let run = ModelRun(seed: seed, steps: arguments.steps)
  guard let violation = run.violation else {
    say("seed \(seed) kept the promise over \(arguments.steps) steps and the drain")
    for (reason, count) in run.exemptions.sorted(by: { $0.key < $1.key }) {
      say("exempted: \(reason): \(count) times")
    }
    if !run.trace.isEmpty {
      say("its steps, with their requests, answers and other devices' changes:")
      for line in run.trace { say("  \(line)") }
    }
    exit(0)
  }
  say("seed \(seed) broke the promise \(violation)")
  let shortest = ModelRun.shortestFailingPrefix(seed: seed, failingAfter: arguments.steps)
  say("the shortest failing prefix:")
  say(shortest.report)
  exit(1)
}

// Each failure is shown as it is found; a long search goes on to the end of its range.
let exemptions = Locked<[String: Int]>([:])
// The seeds each exemption was granted in: the first place to look when working on what the
// checks still waive.
let exemptedSeeds = Locked<[String: [UInt64]]>([:])
let failing = ModelSearch.run(
  first: arguments.first, count: arguments.seeds, steps: arguments.steps,
  threads: arguments.threads
) { run, finished in
  if let violation = run.violation {
    say("seed \(run.seed) broke the promise \(violation)")
    say("replay: \(arguments.replayCommand(seed: run.seed))")
  }
  exemptions.withLock { $0.merge(run.exemptions, uniquingKeysWith: +) }
  exemptedSeeds.withLock { seeds in
    for reason in run.exemptions.keys { seeds[reason, default: []].append(run.seed) }
  }
  if finished % 1_000 == 0 { say("… \(finished) seeds") }
}
let seconds = (clock.now - start) / .seconds(1)
// Before the summary, whose last lines a recorded run keeps.
for (reason, seeds) in exemptedSeeds.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
  let listed = seeds.sorted().prefix(20).map(String.init).joined(separator: " ")
  say(
    "seeds exempted for \(reason) (replay one with --seed N): \(listed)\(seeds.count > 20 ? " …" : "")"
  )
}
let last = arguments.first + UInt64(arguments.seeds) - 1
let threads = arguments.threads == 1 ? "1 thread" : "\(arguments.threads) threads"
say(
  "seeds \(arguments.first) to \(last) of \(arguments.steps) steps on \(threads): "
    + "\(failing.count) failing, " + String(format: "%.1f s", seconds))
for (reason, count) in exemptions.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
  say("exempted: \(reason): \(count) times")
}
exit(failing.isEmpty ? 0 : 1)
