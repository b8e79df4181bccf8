import CourierTooling
import JSON
import TestSupport
import Testing

@Suite("CoverageReport", .tags(.tools), .timeBudget(.seconds(5)))
struct CoverageReportTests {
  /// One file entry of an `llvm-cov export -summary-only` document.
  static func file(_ path: String, lines: (Int, Int), functions: (Int, Int)) -> String {
    """
    {"filename":"\(path)","summary":{"lines":{"count":\(lines.1),"covered":\(lines.0)},\
    "functions":{"count":\(functions.1),"covered":\(functions.0)},"regions":{"count":1}}}
    """
  }

  static let export = """
    {"data":[{"files":[\
    \(file("/repo/Modules/Models/A.swift", lines: (90, 100), functions: (9, 10))),\
    \(file("/repo/Modules/Models/Sub/B.swift", lines: (5, 20), functions: (1, 2))),\
    \(file("/repo/Modules/JSON/JSONParser.swift", lines: (99, 100), functions: (20, 20))),\
    \(file("/repo/TestSupport/Tags.swift", lines: (3, 4), functions: (1, 1))),\
    \(file("/repo/Tests/ModelsTests/ATests.swift", lines: (1, 1000), functions: (1, 1))),\
    \(file("/repo/Tools/courier/main.swift", lines: (0, 50), functions: (0, 5))),\
    \(file("/elsewhere/Modules/Other/X.swift", lines: (0, 50), functions: (0, 5)))\
    ],"totals":{}}],"type":"llvm.coverage.json.export","version":"2.0.1"}
    """

  @Test("It adds up each module's own files and leaves out tests, tools and other roots")
  func perModule() throws {
    // given
    let text = Self.export

    // when
    let report = try CoverageReport(llvmCovExport: text, root: "/repo")

    // then
    #expect(report.modules.map(\.name) == ["JSON", "Models", "TestSupport"])
    let models = try #require(report.modules.first { $0.name == "Models" })
    #expect(models.lines == .init(covered: 95, total: 120))
    #expect(models.functions == .init(covered: 10, total: 12))
    #expect(report.total.lines == .init(covered: 197, total: 224))
  }

  @Test("With modules named it keeps only those")
  func only() throws {
    // given
    let text = Self.export

    // when
    let report = try CoverageReport(llvmCovExport: text, root: "/repo/", only: ["JSON"])

    // then
    #expect(report.modules.map(\.name) == ["JSON"])
  }

  @Test(
    "It names the modules below a floor of line coverage",
    arguments: zip(
      [80.0, 95.0, 99.5],
      [["Models", "TestSupport"], ["Models", "TestSupport"], ["JSON", "Models", "TestSupport"]]))
  func floor(percent: Double, expected: [String]) throws {
    // given
    let report = try CoverageReport(llvmCovExport: Self.export, root: "/repo")

    // when
    let below = report.modules(below: percent)

    // then
    #expect(below.map(\.name) == expected)
  }

  @Test("Its table has a row per module and a total, and its JSON carries the same figures")
  func tableAndJSON() throws {
    // given
    let report = try CoverageReport(llvmCovExport: Self.export, root: "/repo")

    // when
    let table = report.table

    // then
    let rows = table.split(separator: "\n")
    #expect(rows.count == 5)
    #expect(rows[2].contains("Models") && rows[2].contains("95/120") && rows[2].contains("79.1 %"))
    #expect(rows[4].hasPrefix("all") && rows[4].contains("197/224"))
    let models = report.json["modules"]?.arrayValue?[1]
    #expect(models?["lines"]?["covered"] == .integer(95))
    #expect(models?["lines"]?["percent"] == .double(79.17))
  }

  @Test(
    "An export it cannot read is refused with the reason",
    arguments: zip(["not json", #"{"data":[]}"#], ["not JSON", "no data[0].files"]))
  func malformed(text: String, reason: String) {
    // given
    let export = text

    // when
    let error = #expect(throws: ToolError.self) {
      try CoverageReport(llvmCovExport: export, root: "/repo")
    }

    // then
    #expect(error?.description.contains(reason) == true)
  }
}
