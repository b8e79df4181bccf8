/// Which test suites a change can affect: those of every module whose dependency cone holds a
/// changed file, each with the reason it was chosen.
public struct AffectedSuites: Sendable, Equatable {
  /// Why the selection is what it is.
  public enum Scope: Sendable, Equatable {
    /// Every suite: a file every build uses changed (the manifest, TestSupport, Tools, CI).
    case everything(because: String)
    /// The suites in ``AffectedSuites/suites`` only.
    case some
  }

  /// A suite chosen, and the changed modules in its cone that chose it.
  public struct Choice: Sendable, Equatable {
    /// The module whose suite runs.
    public let module: String
    /// The changed modules (its own included) that its suite builds on, or its own suite's
    /// files.
    public let because: [String]
  }

  /// Whether everything runs, or only ``suites``.
  public let scope: Scope
  /// The suites that run, in the manifest's order; empty when nothing a suite builds on changed.
  public let suites: [Choice]

  /// Chooses the suites that `changedPaths` (relative to the repository root) can affect.
  ///
  /// - Parameters:
  ///   - changedPaths: the files changed, added or removed.
  ///   - manifest: the module table, for the dependency cones.
  ///   - modulesWithSuites: the modules that have a suite (`Tests/<Module>Tests`).
  public init(changedPaths: [String], manifest: Manifest, modulesWithSuites: [String]) {
    let everyBuildUses = ["Package.swift", "TestSupport/", "Tools/", ".ci/"]
    if let shared = changedPaths.sorted().first(where: { path in
      everyBuildUses.contains { path == $0 || ($0.hasSuffix("/") && path.hasPrefix($0)) }
    }) {
      scope = .everything(because: shared)
      suites = modulesWithSuites.map { Choice(module: $0, because: []) }
      return
    }
    var changedModules: Set<String> = []
    var changedSuites: Set<String> = []
    for path in changedPaths {
      let parts = path.split(separator: "/", maxSplits: 2).map(String.init)
      guard parts.count >= 2 else { continue }
      if parts[0] == "Modules" { changedModules.insert(parts[1]) }
      if parts[0] == "Tests", parts[1].hasSuffix("Tests") {
        changedSuites.insert(String(parts[1].dropLast("Tests".count)))
      }
    }
    let rows = Dictionary(manifest.rows.map { ($0.name, $0) }) { first, _ in first }
    scope = .some
    suites = modulesWithSuites.compactMap { module in
      let cone = Self.cone(of: module, rows: rows, everySuiteUses: manifest.testSupportDependencies)
      var reasons = cone.intersection(changedModules).sorted()
      if changedSuites.contains(module) { reasons.append("\(module)Tests") }
      return reasons.isEmpty ? nil : Choice(module: module, because: reasons)
    }
  }

  /// The module, its dependencies and its suite's further dependencies (TestSupport's
  /// included), with theirs.
  private static func cone(
    of module: String, rows: [String: Manifest.Row], everySuiteUses: [String]
  ) -> Set<String> {
    var cone: Set<String> = []
    var stack = [module] + (rows[module]?.testDependencies ?? []) + everySuiteUses
    while let name = stack.popLast() {
      guard cone.insert(name).inserted else { continue }
      stack += rows[name]?.dependencies ?? []
    }
    return cone
  }

  /// What `--dry-run` prints: the selection and why each suite is in it.
  public var explanation: String {
    switch scope {
    case .everything(let path):
      return "every suite: \(path) changed, and every build uses it"
    case .some where suites.isEmpty:
      return "no suite: nothing a suite builds on changed"
    case .some:
      return suites.map { "\($0.module)Tests: \($0.because.joined(separator: ", ")) changed" }
        .joined(separator: "\n")
    }
  }
}
