import Foundation
import JSON

/// A log of measured runs kept as JSON lines in `docs/reports/`, and the Markdown page rendered
/// from it, so that figures are written by the tools that measure them and never typed by hand.
///
/// Each line is one flat JSON object: the run's ``Context`` (when, at which commit, with which
/// toolchain, on which machine) and the figures of one benchmark or search run.
public enum ReportLog {
  /// Where and when a run was measured.
  public struct Context: Sendable, Hashable {
    /// The time of the run.
    public var date: Date
    /// The commit measured, such as `5fce221` (with `-dirty` when the tree had changes).
    public var commit: String
    /// The first line of `swift --version`.
    public var toolchain: String
    /// The machine: operating system and architecture.
    public var machine: String
    /// The cores the run could use.
    public var cores: Int

    /// Creates a context.
    public init(date: Date, commit: String, toolchain: String, machine: String, cores: Int) {
      self.date = date
      self.commit = commit
      self.toolchain = toolchain
      self.machine = machine
      self.cores = cores
    }

    var fields: [String: JSONValue] {
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime]
      return [
        "date": .string(formatter.string(from: date)), "commit": .string(commit),
        "toolchain": .string(toolchain), "machine": .string(machine), "cores": .integer(cores),
      ]
    }
  }

  /// A rendering error: a line of the log is not a JSON object.
  public struct BadLine: Error, Hashable, CustomStringConvertible {
    /// The line's number, from 1.
    public let line: Int
    /// Why it could not be read.
    public let reason: String

    /// Creates an error for the line numbered `line`, from 1.
    public init(line: Int, reason: String) {
      self.line = line
      self.reason = reason
    }

    /// `line 3 of the log: …`.
    public var description: String { "line \(line) of the log: \(reason)" }
  }

  /// One log line: the context's fields and the record's, the record winning on a clash.
  public static func line(for record: [String: JSONValue], context: Context) -> String {
    JSONValue.object(context.fields.merging(record) { _, recorded in recorded }).jsonText
  }

  /// The records of a log, oldest first.
  public static func records(inLog log: String) throws(BadLine) -> [[String: JSONValue]] {
    var records: [[String: JSONValue]] = []
    for (offset, line) in log.split(separator: "\n").enumerated() {
      let parsed: JSONValue
      do {
        parsed = try JSONParser.parse(String(line))
      } catch {
        throw BadLine(line: offset + 1, reason: "\(error)")
      }
      guard case .object(let object) = parsed else {
        throw BadLine(line: offset + 1, reason: "not a JSON object")
      }
      records.append(object)
    }
    return records
  }

  /// A Markdown page with a table of the log's records.
  ///
  /// With `latestPer`, the table shows the latest record for each value of that field (in the
  /// order each value first appeared), else every record, oldest first. Each column shows one
  /// field; a missing field shows as a dash.
  public static func page(
    title: String, tool: String, log: String, latestPer key: String?, columns: [String]
  ) throws(BadLine) -> String {
    let records = try records(inLog: log)
    var shown: [[String: JSONValue]] = []
    if let key {
      var order: [String] = []
      var latest: [String: [String: JSONValue]] = [:]
      for record in records {
        let value = record[key].map(cell) ?? "-"
        if latest[value] == nil { order.append(value) }
        latest[value] = record
      }
      shown = order.compactMap { latest[$0] }
    } else {
      shown = records
    }
    var text = """
      # \(title)

      Written by `\(tool)` from the log beside this page (\(records.count) runs recorded); do not \
      edit by hand.


      """
    text += "| " + columns.joined(separator: " | ") + " |\n"
    text += "|" + String(repeating: "---|", count: columns.count) + "\n"
    for record in shown {
      text += "| " + columns.map { record[$0].map(cell) ?? "-" }.joined(separator: " | ") + " |\n"
    }
    return text
  }

  /// A value as a table cell: numbers rounded to four significant digits.
  static func cell(_ value: JSONValue) -> String {
    switch value {
    case .string(let string): string.replacingOccurrences(of: "|", with: "\\|")
    case .integer(let integer): "\(integer)"
    case .double(let double): String(format: "%.4g", double)
    case .bool(let bool): bool ? "yes" : "no"
    case .null: "-"
    default: value.jsonText
    }
  }
}
