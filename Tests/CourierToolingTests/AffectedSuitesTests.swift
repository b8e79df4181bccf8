import CourierTooling
import TestSupport
import Testing

@Suite("AffectedSuites", .tags(.tools), .timeBudget(.seconds(5)))
struct AffectedSuitesTests {
  /// A small module table: Seams under everything through TestSupport, a chain JSON → Parsing →
  /// Sync, and a fake that only Sync's suite uses.
  static let manifest = """
    let modules: [Module] = [
      Module("Seams"),
      Module("JSON"),
      Module("Parsing", dependsOn: ["JSON"]),
      Module("Fake", dependsOn: ["Parsing"]),
      Module("Sync", dependsOn: ["Parsing", "Seams"], testDependencies: ["Fake"]),
      Module("Lonely"),
    ]
    let testSupportDependencies = ["Seams"]
    """
  static let suites = ["TestSupport", "Seams", "JSON", "Parsing", "Fake", "Sync", "Lonely"]

  func affected(_ paths: [String]) throws -> AffectedSuites {
    AffectedSuites(
      changedPaths: paths, manifest: try Manifest(text: Self.manifest),
      modulesWithSuites: Self.suites)
  }

  @Test(
    "A changed module selects the suites whose cone holds it, through suites' own dependencies too",
    arguments: zip(
      [
        ["Modules/Parsing/Reader.swift"], ["Modules/Fake/Fake.swift"],
        ["Modules/Seams/Clock.swift"], ["Tests/LonelyTests/LonelyTests.swift"],
        ["Modules/Lonely/A.swift", "Modules/JSON/B.swift"],
      ],
      [
        ["Parsing", "Fake", "Sync"], ["Fake", "Sync"], Self.suites, ["Lonely"],
        ["JSON", "Parsing", "Fake", "Sync", "Lonely"],
      ]))
  func cones(paths: [String], expected: [String]) throws {
    // when
    let selection = try affected(paths)

    // then
    #expect(selection.scope == .some)
    #expect(selection.suites.map(\.module) == expected)
  }

  @Test(
    "A file every build uses selects everything, and names it",
    arguments: ["Package.swift", "TestSupport/Tags.swift", "Tools/test", ".ci/run"])
  func everything(path: String) throws {
    // when
    let selection = try affected(["README.md", path])

    // then
    #expect(selection.scope == .everything(because: path))
    #expect(selection.explanation.contains(path))
  }

  @Test("Documentation alone selects nothing, and says so")
  func docsOnly() throws {
    // when
    let selection = try affected(["README.md", "CONTRIBUTING.md", "docs/notes.md"])

    // then
    #expect(selection.suites.isEmpty)
    #expect(selection.explanation == "no suite: nothing a suite builds on changed")
  }

  @Test("The explanation says which changed modules put each suite in")
  func explanation() throws {
    // when
    let selection = try affected(["Modules/Fake/Fake.swift", "Tests/SyncTests/SyncTests.swift"])

    // then
    #expect(
      selection.explanation == """
        FakeTests: Fake changed
        SyncTests: Fake, SyncTests changed
        """)
  }
}
