// courier-bench: Courier's benchmarks, each against a baseline measured in the same run. Build
// it in release mode and run it through Tools/bench; `courier-bench --list` names them.
import CourierTooling
import Foundation
import JSON

let available: [(name: String, run: () async throws -> [BenchmarkResult])] = [
  ("url-encoding", { try urlEncodingBenchmark() }),
  ("parsing", { try parsingBenchmarks() }),
  ("drain", { try await drainBenchmarks() }),
  ("save-merge", { try await saveMergeBenchmark() }),
  ("fresh-fake", { try freshFakeBenchmark() }),
  ("end-to-end", { try await endToEndBenchmarks() }),
  ("loopback", { try await loopbackBenchmarks() }),
  ("sqlite-store", { try await storeBenchmarks() }),
  ("screens", { try await screenBenchmarks() }),
  ("store-screen", { try await storeScreenBenchmarks() }),
  ("traits", { try await traitsBenchmark() }),
  ("swift-test", { try await swiftTestBenchmark() }),
  ("model-test", { try await modelTestBenchmark() }),
]

/// What `--help` prints.
let usage = """
  usage: courier-bench [--json] [--record DIR] [NAME…]
         courier-bench --list | --workload NAME | --help

  Runs Courier's benchmarks, each against a baseline measured in the same run, and prints
  median, min and max with the ratio; with no NAME, all of them. Build it in release mode, or
  run it through Tools/bench.
    --json          one JSON object per result
    --record DIR    append each result to DIR/bench.jsonl and render DIR/bench.md
    --list          name the benchmarks
    --workload NAME run one fixed workload once, untimed, for the instruction-count gate
  """

/// The command: every `exit` in it ends the process.
@MainActor
func runCommand() async {
  let arguments = Array(CommandLine.arguments.dropFirst())
  if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
  }
  if arguments.contains("--list") {
    for benchmark in available { print(benchmark.name) }
    exit(0)
  }
  // The child runs of store-screen and end-to-end, each in a process of its own.
  do {
    if try storeScreenChild(arguments) { exit(0) }
    if try await endToEndChild(arguments) { exit(0) }
  } catch {
    FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
    exit(1)
  }
  // `--workload NAME`: run one fixed workload once, untimed, for the instruction-count gate.
  if let index = arguments.firstIndex(of: "--workload") {
    let name = arguments.indices.contains(index + 1) ? arguments[index + 1] : ""
    guard let workload = workloads.first(where: { $0.name == name }) else {
      let names = workloads.map(\.name).joined(separator: ", ")
      FileHandle.standardError.write(Data("courier-bench: no workload '\(name)'; \(names)\n".utf8))
      exit(2)
    }
    do {
      try await workload.run()
    } catch {
      FileHandle.standardError.write(Data("courier-bench: \(name) failed: \(error)\n".utf8))
      exit(1)
    }
    exit(0)
  }
  let json = arguments.contains("--json")
  // `--record DIR`: append each result to DIR/bench.jsonl and render DIR/bench.md from it.
  let recordIndex = arguments.firstIndex(of: "--record")
  let recordFolder = recordIndex.flatMap {
    arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
  }
  if recordIndex != nil, recordFolder == nil {
    FileHandle.standardError.write(Data("courier-bench: --record needs a folder\n".utf8))
    exit(2)
  }
  let options: Set<String> = ["--json", "--record"]
  for argument in arguments where argument.hasPrefix("-") && !options.contains(argument) {
    FileHandle.standardError.write(
      Data("courier-bench: unknown option '\(argument)'; try --help\n".utf8))
    exit(2)
  }
  let wanted = arguments.enumerated().filter { offset, argument in
    !argument.hasPrefix("--") && offset != recordIndex.map { $0 + 1 }
  }.map(\.element)
  var recorded: [String] = []
  for name in wanted where !available.contains(where: { $0.name == name }) {
    FileHandle.standardError.write(
      Data("courier-bench: no benchmark '\(name)'; try --list\n".utf8))
    exit(2)
  }
  var missed = false
  for benchmark in available where wanted.isEmpty || wanted.contains(benchmark.name) {
    do {
      for result in try await benchmark.run() {
        print(json ? result.json.jsonText : result.text + "\n")
        missed = missed || !result.met
        recorded.append(ReportLog.line(for: result.record, context: recordContext()))
      }
    } catch {
      FileHandle.standardError.write(
        Data("courier-bench: \(benchmark.name) failed: \(error)\n".utf8))
      exit(1)
    }
  }
  if let recordFolder {
    do {
      try record(recorded, in: recordFolder)
    } catch {
      FileHandle.standardError.write(Data("courier-bench: cannot record: \(error)\n".utf8))
      exit(1)
    }
  }
  exit(0)
}

// The top level stays synchronous and turns the main run loop, which drains the main queue,
// rather than an async top level, which waits in `dispatchMain()`: valgrind (the
// instruction-count gate's callgrind) stops with an internal error in `dispatchMain()`.
Task { @MainActor in await runCommand() }
while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
