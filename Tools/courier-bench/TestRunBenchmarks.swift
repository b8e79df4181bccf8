// The benchmarks that time the debug test build as contributors run it: what `.courier` adds to
// a test case, and how long the whole suite takes. Tools/bench builds the tests before these run.
import CourierTooling
import Foundation
import JSON

/// Where a child process's output goes: nowhere, so the timing is of the work alone.
private let discard = FileHandle(forWritingAtPath: "/dev/null") ?? FileHandle.standardError

/// Runs `executable` with `arguments` and `environment` added to ours, its standard output going
/// to `output` (nowhere by default); its exit status.
///
/// It starts the child from the main thread: a child inherits the signal mask of the thread that
/// starts it, and the pool's threads block nearly every signal, so a shell script started from
/// one never heard its own children end and waited for them forever.
@MainActor
func runProcess(
  _ executable: String, _ arguments: [String], environment: [String: String] = [:],
  output: Any? = nil
) async throws -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  process.standardOutput = output ?? discard
  process.standardError = discard
  return try await withCheckedThrowingContinuation { continuation in
    process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
    do {
      try process.run()
    } catch {
      process.terminationHandler = nil
      continuation.resume(throwing: error)
    }
  }
}

/// The path of `swift`, found on `PATH`.
func swiftExecutable() throws -> String {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
  for folder in path.split(separator: ":") {
    let candidate = "\(folder)/swift"
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
  }
  throw BenchmarkFailure("no swift on PATH")
}

/// A benchmark that could not run, with the reason.
struct BenchmarkFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The time from the first event to the last of an event stream, so process start and test
/// discovery do not count.
func eventSpan(ofStreamAt path: String) throws -> Duration {
  let text = try String(contentsOfFile: path, encoding: .utf8)
  var first: Double?
  var last: Double?
  for line in text.split(separator: "\n") {
    guard let value = try? JSONParser.parse(String(line)),
      case .double(let at)? = value["payload"]?["instant"]?["absolute"]
    else { continue }
    first = first ?? at
    last = at
  }
  guard let first, let last else { throw BenchmarkFailure("the run at \(path) recorded no event") }
  return .nanoseconds(Int64((last - first) * 1e9))
}

/// `traits`: `.courier` around an empty test against no traits, 2,000 cases each, serially.
func traitsBenchmark() async throws -> [BenchmarkResult] {
  let swift = try swiftExecutable()
  let events = FileManager.default.temporaryDirectory
    .appendingPathComponent("courier-bench-traits-\(getpid()).jsonl").path
  defer { try? FileManager.default.removeItem(atPath: events) }
  func span(_ test: String) async throws -> Duration {
    try? FileManager.default.removeItem(atPath: events)
    _ = try await runProcess(
      swift,
      [
        "test", "--skip-build", "--no-parallel", "--filter", "TraitCostProbe/\(test)",
        "--event-stream-output-path", events, "--event-stream-version", "0",
      ], environment: ["COURIER_TRAIT_PROBE": "1"])
    return try eventSpan(ofStreamAt: events)
  }
  _ = try await span("withTraits")
  _ = try await span("withoutTraits")
  var with: [Duration] = []
  var without: [Duration] = []
  for _ in 0..<5 {
    with.append(try await span("withTraits"))
    without.append(try await span("withoutTraits"))
  }
  let subject = Samples(durations: with)
  let baseline = Samples(durations: without)
  let addedPerCase = (subject.median - baseline.median) / 2_000
  let added = addedPerCase.seconds * 1e6
  var result = BenchmarkResult(
    name: "traits: .courier around an empty test, 2,000 cases, serial, debug test build",
    subject: subject, baseline: baseline, baselineName: "the same 2,000 cases without traits",
    ratio: subject.median.seconds / max(baseline.median.seconds, 1e-9),
    ratioMeaning: "time relative to no traits:", goal: "≤ 20 µs added per case",
    met: added <= 20)
  result.notes.append(String(format: "added per test case: %.1f µs", added))
  return [result]
}

/// How many tests run at once, as `Tools/test` runs them: `COURIER_TEST_WIDTH`, or 8 per core
/// (`COURIER_JOBS` cores, or the machine's).
func testWidthArguments() -> [String] {
  let environment = ProcessInfo.processInfo.environment
  let cores =
    environment["COURIER_JOBS"].flatMap(Int.init)
    ?? ProcessInfo.processInfo.activeProcessorCount
  let width = environment["COURIER_TEST_WIDTH"].flatMap(Int.init) ?? 8 * cores
  return ["--experimental-maximum-parallelization-width", "\(width)"]
}

/// `swift-test`: the whole suite after a build, run by `Tools/test --skip-build` as a contributor
/// runs it (its processes, width and reports), against a `swift test` that selects nothing (the
/// cost of starting the test process and discovering the tests).
func swiftTestBenchmark() async throws -> [BenchmarkResult] {
  let swift = try swiftExecutable()
  let events = FileManager.default.temporaryDirectory
    .appendingPathComponent("courier-bench-suite-\(getpid()).jsonl").path
  defer { try? FileManager.default.removeItem(atPath: events) }
  let clock = ContinuousClock()
  var emptyRuns: [Duration] = []
  let selectNothing =
    ["test", "--skip-build", "--filter", "^NoTestIsNamedThis$"] + testWidthArguments()
  _ = try await runProcess(swift, selectNothing)
  for _ in 0..<3 {
    let start = clock.now
    _ = try await runProcess(swift, selectNothing)
    emptyRuns.append(clock.now - start)
  }
  let empty = Samples(durations: emptyRuns)
  let start = clock.now
  let status = try await runProcess("Tools/test", ["--skip-build", "--events", events])
  let whole = Samples(durations: [clock.now - start], warmedUp: false)
  let report = try RunReport(eventStream: String(contentsOfFile: events, encoding: .utf8))
  let cases = report.passedCount + report.failedCount + report.skipped
  var result = BenchmarkResult(
    name: "swift-test: the whole suite after a debug build (Tools/test --skip-build)",
    subject: whole, baseline: empty, baselineName: "a run that selects no test",
    ratio: whole.median.seconds / max(empty.median.seconds, 1e-9),
    ratioMeaning: "time relative to starting the test process:", goal: "≥ 1,000 cases in ≤ 20 s",
    met: status == 0 && cases >= 1_000 && whole.median <= .seconds(20))
  result.notes.append("\(report.summary); exit status \(status)")
  return [result]
}

/// `model-test`: the model test's seeded sequences in the debug test build, as `Tools/test` runs
/// them, against the same seeds in `courier-model-check` built for release, in turn.
///
/// The seeds are many enough that starting either process is a small part of its time.
func modelTestBenchmark() async throws -> [BenchmarkResult] {
  let seeds = 1_000
  let swift = try swiftExecutable()
  let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  let release = folder.appendingPathComponent("courier-model-check").path
  guard FileManager.default.isExecutableFile(atPath: release) else {
    throw BenchmarkFailure("no courier-model-check beside courier-bench at \(release)")
  }
  let clock = ContinuousClock()
  func timed(_ executable: String, _ arguments: [String], _ environment: [String: String] = [:])
    async throws -> Duration
  {
    let start = clock.now
    let status = try await runProcess(executable, arguments, environment: environment)
    guard status == 0 else {
      throw BenchmarkFailure("\(executable) \(arguments.joined(separator: " ")) exited \(status)")
    }
    return clock.now - start
  }
  var debug: [Duration] = []
  var optimised: [Duration] = []
  for _ in 0..<3 {
    debug.append(
      try await timed(
        swift, ["test", "--skip-build", "--filter", "UpstreamModelTests/seededSequences"],
        ["COURIER_MODEL_SEEDS": "\(seeds)"]))
    optimised.append(try await timed(release, ["--seeds", "\(seeds)", "--threads", "2"]))
  }
  let subject = Samples(durations: debug, warmedUp: false)
  let baseline = Samples(durations: optimised, warmedUp: false)
  let ratio = subject.median.seconds / max(baseline.median.seconds, 1e-9)
  var result = BenchmarkResult(
    name: "model-test: 1,000 seeded sequences in the debug test build",
    subject: subject, baseline: baseline,
    baselineName: "the same seeds in courier-model-check, built for release",
    ratio: ratio, ratioMeaning: "time relative to the release build:", goal: "≤ 2×",
    met: ratio <= 2)
  result.notes.append("both on two threads; the debug run includes starting swift test")
  return [result]
}
