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
let failing = ModelSearch.run(
  first: arguments.first, count: arguments.seeds, steps: arguments.steps,
  threads: arguments.threads
) { run, finished in
  if let violation = run.violation {
    say("seed \(run.seed) broke the promise \(violation)")
    say("replay: \(arguments.replayCommand(seed: run.seed))")
  }
  exemptions.withLock { $0.merge(run.exemptions, uniquingKeysWith: +) }
  if finished % 1_000 == 0 { say("… \(finished) seeds") }
}
let seconds = (clock.now - start) / .seconds(1)
let last = arguments.first + UInt64(arguments.seeds) - 1
let threads = arguments.threads == 1 ? "1 thread" : "\(arguments.threads) threads"
say(
  "seeds \(arguments.first) to \(last) of \(arguments.steps) steps on \(threads): "
    + "\(failing.count) failing, " + String(format: "%.1f s", seconds))
for (reason, count) in exemptions.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
  say("exempted: \(reason): \(count) times")
}
exit(failing.isEmpty ? 0 : 1)
