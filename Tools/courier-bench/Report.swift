import CourierTooling
import Foundation
import JSON

/// One benchmark's result: the subject, its baseline in the same run, the ratio, and the goal.
struct BenchmarkResult {
  let name: String
  let subject: Samples
  let baseline: Samples?
  let baselineName: String?
  /// The ratio as the goal states it (a speed-up, a cost ratio, a growth factor).
  let ratio: Double?
  let ratioMeaning: String
  let goal: String
  let met: Bool
  var notes: [String] = []

  var text: String {
    var lines = [
      "\(name)",
      "  median \(subject.median.readable)  min \(subject.min.readable)  max \(subject.max.readable)  (\(subject.durations.count) runs\(subject.warmedUp ? " after a warm-up" : ""))",
    ]
    if let baseline, let baselineName {
      lines.append(
        "  baseline \(baselineName): median \(baseline.median.readable)  min \(baseline.min.readable)  max \(baseline.max.readable)"
      )
    }
    if let ratio { lines.append(String(format: "  %@ %.2f", ratioMeaning, ratio)) }
    lines.append("  goal: \(goal) — \(met ? "met" : "MISSED")")
    lines += notes.map { "  \($0)" }
    return lines.joined(separator: "\n")
  }

  var json: JSONValue {
    func stats(_ samples: Samples) -> JSONValue {
      [
        "median_s": .double(samples.median.seconds), "min_s": .double(samples.min.seconds),
        "max_s": .double(samples.max.seconds), "runs": .integer(samples.durations.count),
      ]
    }
    var object: [String: JSONValue] = [
      "name": .string(name), "subject": stats(subject), "goal": .string(goal), "met": .bool(met),
      "ratio_meaning": .string(ratioMeaning), "notes": .array(notes.map(JSONValue.string)),
    ]
    if let baseline { object["baseline"] = stats(baseline) }
    if let baselineName { object["baseline_name"] = .string(baselineName) }
    if let ratio { object["ratio"] = .double(ratio) }
    return .object(object)
  }
}

extension BenchmarkResult {
  /// The result as one flat record of the benchmark log.
  var record: [String: JSONValue] {
    var fields: [String: JSONValue] = [
      "name": .string(name), "median_s": .double(subject.median.seconds),
      "min_s": .double(subject.min.seconds), "max_s": .double(subject.max.seconds),
      "runs": .integer(subject.durations.count), "goal": .string(goal), "met": .bool(met),
      "ratio_meaning": .string(ratioMeaning),
    ]
    if let baseline { fields["baseline_median_s"] = .double(baseline.median.seconds) }
    if let baselineName { fields["baseline"] = .string(baselineName) }
    if let ratio { fields["ratio"] = .double(ratio) }
    return fields
  }
}

/// The context of this run: the commit and toolchain from the environment `Tools/bench` sets.
func recordContext() -> ReportLog.Context {
  let environment = ProcessInfo.processInfo.environment
  var system = utsname()
  uname(&system)
  func text<T>(_ field: T) -> String {
    withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }
  return ReportLog.Context(
    date: Date(), commit: environment["COURIER_COMMIT"] ?? "unknown",
    toolchain: environment["COURIER_TOOLCHAIN"] ?? "unknown",
    machine: "\(text(system.sysname)) \(text(system.machine))",
    cores: ProcessInfo.processInfo.activeProcessorCount)
}

/// Appends `lines` to `folder/bench.jsonl` and renders `folder/bench.md` from the whole log.
func record(_ lines: [String], in folder: String) throws {
  let directory = URL(fileURLWithPath: folder)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  let logURL = directory.appendingPathComponent("bench.jsonl")
  let old = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
  let log = old + lines.map { $0 + "\n" }.joined()
  try Data(log.utf8).write(to: logURL)
  let page = try ReportLog.page(
    title: "Benchmarks", tool: "Tools/bench --record", log: log, latestPer: "name",
    columns: [
      "name", "median_s", "min_s", "max_s", "baseline", "baseline_median_s", "ratio_meaning",
      "ratio", "goal", "met", "date", "commit", "toolchain", "machine", "cores",
    ])
  try Data(page.utf8).write(to: directory.appendingPathComponent("bench.md"))
}
