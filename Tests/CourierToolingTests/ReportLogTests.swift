import CourierTooling
import Foundation
import JSON
import TestSupport
import Testing

@Suite("ReportLog", .tags(.tools), .timeBudget(.seconds(5)))
struct ReportLogTests {
  static let context = ReportLog.Context(
    date: Date(timeIntervalSince1970: 0), commit: "abc1234", toolchain: "Swift 6.3",
    machine: "Linux x86_64", cores: 2)

  @Test("It stamps each record with the run's context, the record winning on a clash")
  func stampsContext() throws {
    // when
    let line = ReportLog.line(
      for: ["name": "drain", "median_s": .double(0.5), "cores": 8], context: Self.context)

    // then
    let record = try #require(try ReportLog.records(inLog: line).first)
    #expect(record["commit"] == "abc1234")
    #expect(record["date"] == "1970-01-01T00:00:00Z")
    #expect(record["name"] == "drain")
    #expect(record["cores"] == 8)
  }

  @Test("It renders the latest record of each benchmark, in the order they first appeared")
  func rendersLatest() throws {
    // given
    let log = [
      ReportLog.line(for: ["name": "drain", "ratio": .double(1.5)], context: Self.context),
      ReportLog.line(for: ["name": "parse", "ratio": .double(2)], context: Self.context),
      ReportLog.line(
        for: ["name": "drain", "ratio": .double(1.25), "met": true], context: Self.context),
    ].joined(separator: "\n")

    // when
    let page = try ReportLog.page(
      title: "Benchmarks", tool: "Tools/bench --record", log: log, latestPer: "name",
      columns: ["name", "ratio", "met"])

    // then
    let rows = page.split(separator: "\n").filter { $0.hasPrefix("| ") }
    #expect(rows == ["| name | ratio | met |", "| drain | 1.25 | yes |", "| parse | 2 | - |"])
    #expect(page.contains("3 runs recorded"))
  }

  @Test("It names the line of the log that is not a JSON object")
  func namesBadLine() {
    // given
    let log = #"{"name": "drain"}"# + "\n[1, 2]\n"

    // when, then
    #expect(throws: ReportLog.BadLine(line: 2, reason: "not a JSON object")) {
      try ReportLog.records(inLog: log)
    }
  }
}
