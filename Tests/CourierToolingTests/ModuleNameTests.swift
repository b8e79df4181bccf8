import CourierTooling
import TestSupport
import Testing

@Suite("ModuleName", .tags(.tools), .timeBudget(.seconds(5)))
struct ModuleNameTests {
  @Test(
    "It refuses names that would not make a good module, saying why",
    arguments: zip(
      [
        "", "models", "My-Module", "Naïve", "Foundation", "Testing", "Dispatch", "TestSupport",
        "Models", "ParserTests", "1Up",
      ],
      [
        "empty", "capital", "letters and digits", "letters and digits", "toolchain module",
        "toolchain module", "toolchain module", "already uses", "exists already",
        "kept for test suites", "capital",
      ]))
  func refusals(_ name: String, _ reason: String) {
    // when
    let error = #expect(throws: ToolError.self) {
      try ModuleName(name, existing: ["Models"])
    }

    // then
    #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
  }

  @Test(
    "It accepts UpperCamelCase names and derives the tag name",
    arguments: zip(
      ["Billing", "HTTPClient", "Sync2", "X"], ["billing", "httpClient", "sync2", "x"]))
  func tagNames(_ name: String, _ tag: String) throws {
    // when
    let module = try ModuleName(name, existing: ["Models"])

    // then
    #expect(module.tagName == tag)
    #expect(module.description == name)
  }
}

@Suite("Manifest", .tags(.tools), .timeBudget(.seconds(5)))
struct ManifestTests {
  static let text = """
    let modules: [Module] = [
      Module("Seams"),
      Module("JSON"),
      Module("Parsing", dependsOn: ["JSON"], testResources: [.copy("Fixtures")]),
      Module(
        "Events",
        dependsOn: ["Parsing", "Seams"]),
    ]
    let other = [1]
    """

  @Test("It reads the rows of the module table with their dependencies")
  func rows() throws {
    // when
    let manifest = try Manifest(text: Self.text)

    // then
    #expect(manifest.moduleNames == ["Seams", "JSON", "Parsing", "Events"])
    #expect(manifest.rows.map(\.dependencies) == [[], [], ["JSON"], ["Parsing", "Seams"]])
  }

  @Test("It appends a row at the end of the table and nowhere else")
  func addsRow() throws {
    // given
    var manifest = try Manifest(text: Self.text)
    let name = try ModuleName("Billing", existing: Set(manifest.moduleNames))

    // when
    try manifest.addModule(name, dependsOn: ["JSON", "Seams"])

    // then
    #expect(
      manifest.text.contains(
        "    dependsOn: [\"Parsing\", \"Seams\"]),\n  Module(\"Billing\", dependsOn: [\"JSON\", \"Seams\"]),\n]\nlet other = [1]"
      ))
    #expect(try Manifest(text: manifest.text).moduleNames.last == "Billing")
  }

  @Test("An unknown dependency is refused with the modules there are")
  func unknownDependency() throws {
    // given
    var manifest = try Manifest(text: Self.text)
    let name = try ModuleName("Billing", existing: [])

    // when
    let error = #expect(throws: ToolError.self) {
      try manifest.addModule(name, dependsOn: ["Jason"])
    }

    // then
    #expect(error == .unknownDependency("Jason", known: ["Seams", "JSON", "Parsing", "Events"]))
    #expect(manifest.text == Self.text)
  }

  @Test("A module depending on itself is refused as a cycle")
  func cycle() throws {
    // given
    var manifest = try Manifest(text: Self.text)
    let name = try ModuleName("Billing", existing: [])

    // when
    let error = #expect(throws: ToolError.self) {
      try manifest.addModule(name, dependsOn: ["JSON", "Billing"])
    }

    // then
    #expect(error == .dependencyCycle(["Billing", "Billing"]))
  }

  @Test("A manifest without the table is refused")
  func noTable() {
    // when
    let error = #expect(throws: ToolError.self) { try Manifest(text: "let x = 1") }

    // then
    #expect(error?.description.contains("has no `let modules: [Module] = [` table") == true)
  }
}

@Suite("Scaffold", .tags(.tools), .timeBudget(.seconds(5)))
struct ScaffoldTests {
  @Test("It writes the module's source and suite at the fixed paths, naming the module's tag")
  func files() throws {
    // given
    let scaffold = Scaffold(name: try ModuleName("Billing", existing: []))

    // when
    let files = scaffold.files

    // then
    #expect(
      files.map(\.path) == [
        "Modules/Billing/Billing.swift", "Modules/Billing/Billing.docc/Billing.md",
        "Tests/BillingTests/BillingTests.swift",
      ])
    #expect(files[0].contents.contains("public struct BillingVersion"))
    #expect(files[1].contents.hasPrefix("# ``Billing``\n"))
    #expect(files[1].contents.contains("## Overview"))
    #expect(files[2].contents.contains("import Billing"))
    #expect(files[2].contents.contains(".tags(.billing)"))
    #expect(files[2].contents.contains("// given"))
  }

  @Test("It adds the module's tag before the cross-cutting tags, or says the file is unexpected")
  func tag() throws {
    // given
    let scaffold = Scaffold(name: try ModuleName("HTTPClient", existing: []))
    let tags =
      "extension Tag {\n  @Tag package static var models: Self\n\n  // MARK: - Cross-cutting\n}\n"

    // when
    let edited = try scaffold.addingTag(to: tags)

    // then
    #expect(
      edited.contains("@Tag package static var httpClient: Self\n\n  // MARK: - Cross-cutting"))
    #expect(throws: ToolError.self) { try scaffold.addingTag(to: "extension Tag {}") }
  }
}

@Suite("DisabledTestScanner", .tags(.tools), .timeBudget(.seconds(5)))
struct DisabledTestScannerTests {
  /// Swift source with disabled and conditional tests, kept in a fixture so that the
  /// repository's own `Tools/disabled-tests` does not take it for real tests.
  static func source() throws -> String {
    String(
      decoding: try Fixtures.data(named: "DisabledSample.swift.txt", in: .module), as: UTF8.self)
  }

  @Test(
    "It finds every disabled and conditional test with its line, name and reason; one skipped under a sanitizer is conditional"
  )
  func findings() throws {
    // when
    let findings = DisabledTestScanner().scan(try Self.source(), file: "X.swift")

    // then
    #expect(findings.map(\.line) == [1, 3, 6, 9, 18, 22])
    #expect(
      findings.map(\.name) == [
        "Outer", "It waits", "noReason", "It is huge", "probe", "It is slow under TSan",
      ])
    #expect(
      findings.map(\.kind) == [
        .disabled, .conditional, .disabled, .conditional, .conditional, .conditional,
      ])
    #expect(
      findings.map(\.reason) == [
        "the backend is down; re-enable when staging is back", "needs a network", nil,
        "runs only when COURIER_SLOW_TESTS=1", "a fixture for benchmarks",
        "a child process takes minutes there",
      ])
    #expect(findings[2].description == "X.swift:6: noReason — disabled: NO REASON GIVEN")
  }
}
