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
