// swift-tools-version: 6.1
// Courier's manifest reads as a table: one row per module, from which the library targets,
// their test suites and their products are generated. Adding a module is one row here plus
// the folders `Modules/<Name>` and `Tests/<Name>Tests`.
import PackageDescription

// MARK: - The module table

/// One library module of Courier and the modules it depends on.
struct Module {
  /// The module's name: its folder under `Modules/` and its target name.
  let name: String
  /// The Courier modules this one imports.
  let dependencies: [String]
  /// Resources of the module's test suite, if it ships fixtures.
  let testResources: [Resource]
  /// Further Courier modules the suite (not the module) uses, such as the fake backend.
  let testDependencies: [String]
  /// Whether apps may depend on the module, which then is a library product.
  ///
  /// Modules behind the executables (the demo, the contributor tools) are not published.
  let isPublished: Bool
  /// For a C library of the system (a module map in `Modules/<Name>`), its pkg-config name and
  /// the Debian packages that provide it; such a module has no suite of its own.
  let systemLibrary: (pkgConfig: String, apt: [String])?

  init(
    _ name: String, dependsOn dependencies: [String] = [], testResources: [Resource] = [],
    testDependencies: [String] = [], published isPublished: Bool = true
  ) {
    self.name = name
    self.dependencies = dependencies
    self.testResources = testResources
    self.testDependencies = testDependencies
    self.isPublished = isPublished
    self.systemLibrary = nil
  }

  init(_ name: String, systemLibrary pkgConfig: String, apt packages: [String]) {
    self.name = name
    self.dependencies = []
    self.testResources = []
    self.testDependencies = []
    self.isPublished = false
    self.systemLibrary = (pkgConfig, packages)
  }
}

let modules: [Module] = [
  Module("Seams"),
  Module("JSON"),
  Module("HTTPRequest", dependsOn: ["JSON"]),
  Module("ParsingCore", dependsOn: ["JSON"]),
  Module("ConnectionParsing", dependsOn: ["ParsingCore"], testResources: [.copy("Fixtures")]),
  Module("UserParsing", dependsOn: ["ParsingCore"]),
  Module("ConversationParsing", dependsOn: ["ParsingCore"]),
  Module(
    "EventParsing",
    dependsOn: ["ParsingCore", "ConnectionParsing", "UserParsing", "ConversationParsing"],
    testResources: [.copy("Fixtures")]),
  Module(
    "CourierAPI",
    dependsOn: [
      "HTTPRequest", "JSON", "ParsingCore", "ConnectionParsing", "UserParsing",
      "ConversationParsing", "EventParsing",
    ]),
  Module("Models", dependsOn: ["Seams"], testDependencies: ["ModelsTestSupport"]),
  Module("ModelsTestSupport", dependsOn: ["Models", "TestSupport", "Seams"]),
  Module(
    "CourierTooling", dependsOn: ["JSON"], testResources: [.copy("Fixtures")], published: false),
  Module(
    "FuzzProperties",
    dependsOn: [
      "JSON", "HTTPRequest", "ParsingCore", "ConnectionParsing", "UserParsing",
      "ConversationParsing", "EventParsing", "LoopbackServer",
    ], testDependencies: ["LoopbackServer"], published: false),
  Module(
    "Transport", dependsOn: ["HTTPRequest", "JSON", "ParsingCore", "Seams"],
    testDependencies: ["FakeBackend"]),
  Module("LoopbackServer", dependsOn: ["Seams"]),
  Module("CSQLite", systemLibrary: "sqlite3", apt: ["libsqlite3-dev"]),
  Module(
    "SQLiteStore", dependsOn: ["CSQLite", "Models", "Seams"],
    testDependencies: [
      "ModelsTestSupport", "FakeBackend", "SyncEngine", "SyncStrategies", "Transport",
      "LoopbackServer", "HTTPRequest", "ConversationParsing",
    ]),
  Module(
    "FakeBackend",
    dependsOn: [
      "CourierAPI", "Transport", "HTTPRequest", "JSON", "Seams", "ParsingCore", "ConnectionParsing",
      "UserParsing", "ConversationParsing", "EventParsing", "LoopbackServer",
    ]),
  Module(
    "SyncStrategies",
    dependsOn: [
      "CourierAPI", "Models", "Transport", "HTTPRequest", "JSON", "Seams", "ParsingCore",
      "ConnectionParsing", "UserParsing", "ConversationParsing", "EventParsing",
    ], testDependencies: ["ModelsTestSupport", "SyncTestSupport", "FakeBackend"]),
  Module(
    "SyncEngine",
    dependsOn: ["CourierAPI", "SyncStrategies", "Models", "Transport", "HTTPRequest", "Seams"],
    testDependencies: ["FakeBackend", "ModelsTestSupport", "SyncTestSupport"]),
  Module(
    "SyncTestSupport",
    dependsOn: [
      "SyncEngine", "SyncStrategies", "FakeBackend", "ModelsTestSupport", "TestSupport", "Models",
      "CourierAPI", "Transport", "HTTPRequest", "JSON", "Seams", "ConnectionParsing",
    ]),
  Module(
    "Simulation",
    dependsOn: [
      "SyncEngine", "SyncStrategies", "FakeBackend", "Models", "SQLiteStore", "Seams",
      "CourierAPI", "Transport", "HTTPRequest", "ConnectionParsing", "ConversationParsing",
      "UserParsing", "EventParsing",
    ]),
  Module(
    "CourierDemo",
    dependsOn: [
      "CourierAPI", "SyncEngine", "SyncStrategies", "FakeBackend", "Models", "Transport",
      "HTTPRequest", "JSON", "Seams", "ConnectionParsing", "ConversationParsing", "UserParsing",
      "LoopbackServer", "SQLiteStore",
    ], published: false),
  Module(
    "UpstreamModelCheck",
    dependsOn: [
      "SyncStrategies", "FakeBackend", "Models", "CourierAPI", "Seams", "Transport", "ParsingCore",
      "ConnectionParsing", "ConversationParsing", "UserParsing",
    ], published: false),
]

/// Test helpers every suite builds on; an ordinary library so app developers can test with it too.
///
/// It depends on no Courier domain module: Courier's model fixtures are in `ModelsTestSupport`.
let testSupportDependencies = ["Seams", "JSON"]

// MARK: - Settings shared by every target

let swiftSettings: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableExperimentalFeature("StrictConcurrency=complete"),
]

// MARK: - Narrowing to a dependency cone

/// `COURIER_MODULES=A,B` keeps only those modules, their dependencies and their suites, so that a
/// contributor working on one module builds nothing outside its cone.
func selectedModules() -> [Module] {
  let byName = Dictionary(uniqueKeysWithValues: modules.map { ($0.name, $0) })
  guard let wanted = Context.environment["COURIER_MODULES"], !wanted.isEmpty else { return modules }
  var keep = Set<String>()
  let named = wanted.split(separator: ",").map { String($0) }
  var stack = named + named.flatMap { byName[$0]?.testDependencies ?? [] } + testSupportDependencies
  while let name = stack.popLast() {
    guard keep.insert(name).inserted, let module = byName[name] else { continue }
    stack += module.dependencies
  }
  return modules.filter { keep.contains($0.name) }
}

let selected = selectedModules()
let suites = Set(
  (Context.environment["COURIER_MODULES"] ?? "").split(separator: ",").map { String($0) }
)

// MARK: - Generated targets and products

var targets: [Target] = [
  .target(
    name: "TestSupport",
    dependencies: testSupportDependencies.map { .target(name: $0) },
    path: "TestSupport",
    swiftSettings: swiftSettings
  )
]

if suites.isEmpty || suites.contains("TestSupport") {
  targets.append(
    .testTarget(
      name: "TestSupportTests",
      dependencies: ["TestSupport", "Seams", "JSON"],
      path: "Tests/TestSupportTests",
      resources: [.copy("Fixtures")],
      swiftSettings: swiftSettings
    )
  )
}

for module in selected {
  if let system = module.systemLibrary {
    targets.append(
      .systemLibrary(
        name: module.name, path: "Modules/\(module.name)", pkgConfig: system.pkgConfig,
        providers: [.apt(system.apt)]))
    continue
  }
  targets.append(
    .target(
      name: module.name,
      dependencies: module.dependencies.map { .target(name: $0) },
      path: "Modules/\(module.name)",
      swiftSettings: swiftSettings
    )
  )
  if suites.isEmpty || suites.contains(module.name) {
    targets.append(
      .testTarget(
        name: "\(module.name)Tests",
        dependencies: [.target(name: module.name), "TestSupport"]
          + module.testDependencies.map { .target(name: $0) },
        path: "Tests/\(module.name)Tests",
        resources: module.testResources,
        swiftSettings: swiftSettings
      )
    )
  }
}

// MARK: - Contributor tools

/// The executable behind the scripts in `Tools/`; built only with its library.
if selected.contains(where: { $0.name == "CourierTooling" }) {
  targets.append(
    .executableTarget(
      name: "courier-tools",
      dependencies: ["CourierTooling"],
      path: "Tools/courier-tools",
      swiftSettings: swiftSettings
    )
  )
}

/// `swift run courier demo`: the main command, a thin shell around CourierDemo.
if selected.contains(where: { $0.name == "CourierDemo" }) {
  targets.append(
    .executableTarget(
      name: "courier",
      dependencies: ["CourierDemo"],
      path: "Tools/courier",
      swiftSettings: swiftSettings
    )
  )
}

/// The benchmarks (`Tools/bench`); part of the full build only, so CI always compiles them.
if (Context.environment["COURIER_MODULES"] ?? "").isEmpty {
  targets.append(
    .executableTarget(
      name: "courier-bench",
      dependencies: [
        "CourierAPI", "HTTPRequest", "JSON", "ParsingCore", "ConnectionParsing", "Models",
        "SyncStrategies", "SyncEngine", "FakeBackend", "Transport", "Seams", "LoopbackServer",
        "TestSupport", "SQLiteStore", "CSQLite", "CourierTooling",
      ],
      path: "Tools/courier-bench",
      swiftSettings: swiftSettings
    )
  )
}

/// `Tools/simulate`: seeded simulations of whole clients, built in release by the script.
if selected.contains(where: { $0.name == "Simulation" }) {
  targets.append(
    .executableTarget(
      name: "courier-simulate",
      dependencies: ["Simulation"],
      path: "Tools/courier-simulate",
      swiftSettings: swiftSettings
    )
  )
}

/// `Tools/model-check`: the model test's seeded sequences, built in release by the script.
if selected.contains(where: { $0.name == "UpstreamModelCheck" }) {
  targets.append(
    .executableTarget(
      name: "courier-model-check",
      dependencies: ["UpstreamModelCheck"],
      path: "Tools/courier-model-check",
      swiftSettings: swiftSettings
    )
  )
}

/// `Tools/check-snippets`: the Swift blocks of the README and CONTRIBUTING, extracted into
/// `.build/doc-snippets`, compiled against every published module.
if Context.environment["COURIER_DOC_SNIPPETS"] == "1" {
  targets.append(
    .target(
      name: "DocSnippets",
      dependencies: selected.filter(\.isPublished).map { .target(name: $0.name) } + ["TestSupport"],
      path: ".build/doc-snippets",
      swiftSettings: swiftSettings
    )
  )
}

let package = Package(
  name: "Courier",
  platforms: [.macOS(.v15), .iOS(.v18)],
  // What an app may depend on: the published modules and the generic test helpers.
  products: selected.filter(\.isPublished).map { .library(name: $0.name, targets: [$0.name]) }
    + [.library(name: "TestSupport", targets: ["TestSupport"])]
    + (selected.contains { $0.name == "CourierDemo" }
      ? [.executable(name: "courier", targets: ["courier"])] : []),
  targets: targets
)
