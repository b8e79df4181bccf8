import Foundation
import JSON

/// The instruction-count gate: fixed workloads' instruction counts against thresholds.
///
/// The counts are measured with `valgrind --tool=callgrind`; the thresholds are kept per
/// toolchain, and a regression of more than a tolerance fails. Instruction counts do not drift
/// with the machine's load as times do.
public enum InstructionGate {
  /// One workload's count against its threshold.
  public struct Verdict: Sendable, Hashable, CustomStringConvertible {
    /// The workload's name, such as `drain-10k`.
    public let name: String
    /// The instructions counted in this run.
    public let measured: Int
    /// The threshold kept for the toolchain, or `nil` when none is kept.
    public let threshold: Int?
    /// Whether the count is within the threshold and its tolerance.
    public let passed: Bool

    /// `drain-10k: 1,234,567 instructions, 0.98× the threshold — ok`.
    public var description: String {
      let count = measured.formatted(.number.grouping(.automatic))
      guard let threshold else { return "\(name): \(count) instructions, no threshold — FAILED" }
      let ratio = String(format: "%.3f", Double(measured) / Double(threshold))
      return "\(name): \(count) instructions, \(ratio)× the threshold — \(passed ? "ok" : "FAILED")"
    }
  }

  /// A file's contents that could not be read.
  public struct ReadError: Error, Hashable, CustomStringConvertible {
    /// What was wrong.
    public let reason: String

    /// Creates an error saying what was wrong.
    public init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
  }

  /// The total instruction count of a callgrind output file: its `summary:` line, or else its
  /// `totals:` line.
  public static func count(fromCallgrindOutput text: String) throws(ReadError) -> Int {
    let lines = text.split(separator: "\n")
    for prefix in ["summary:", "totals:"] {
      if let line = lines.first(where: { $0.hasPrefix(prefix) }),
        let first = line.dropFirst(prefix.count).split(separator: " ").first,
        let count = Int(first)
      {
        return count
      }
    }
    throw ReadError("no summary or totals line in the callgrind output")
  }

  /// The thresholds of a thresholds file: a JSON object of workload names and counts.
  public static func thresholds(fromJSON text: String) throws(ReadError) -> [String: Int] {
    guard case .object(let object)? = try? JSONParser.parse(text) else {
      throw ReadError("the thresholds file is not a JSON object")
    }
    var thresholds: [String: Int] = [:]
    for (name, value) in object {
      guard case .integer(let count) = value else {
        throw ReadError("the threshold of \(name) is not a whole number")
      }
      thresholds[name] = count
    }
    return thresholds
  }

  /// A thresholds file for `counts`: one line per workload, in name order.
  public static func thresholdsJSON(_ counts: [String: Int]) -> String {
    let lines = counts.sorted { $0.key < $1.key }.map { "  \"\($0.key)\": \($0.value)" }
    return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
  }

  /// Each measured workload against its threshold: it passes when it is at most
  /// `1 + tolerance` times the threshold; a workload with no threshold fails.
  public static func verdicts(
    measured: [String: Int], thresholds: [String: Int], tolerance: Double = 0.05
  ) -> [Verdict] {
    measured.sorted { $0.key < $1.key }.map { name, count in
      let threshold = thresholds[name]
      let passed = threshold.map { Double(count) <= Double($0) * (1 + tolerance) } ?? false
      return Verdict(name: name, measured: count, threshold: threshold, passed: passed)
    }
  }
}
