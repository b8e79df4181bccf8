import JSON

/// Line and function coverage per module, read from `llvm-cov export -summary-only`: only the
/// files under `Modules/<Name>/` (and `TestSupport/`) count, never tests or tools.
public struct CoverageReport: Sendable, Equatable {
  /// Covered and total counts of one kind (lines or functions).
  public struct Count: Sendable, Equatable {
    /// How many were run at least once.
    public var covered: Int
    /// How many there are.
    public var total: Int

    /// Creates a count.
    public init(covered: Int, total: Int) {
      self.covered = covered
      self.total = total
    }

    /// The covered share in percent; 100 when there is nothing to cover.
    public var percent: Double { total == 0 ? 100 : Double(covered) * 100 / Double(total) }
  }

  /// One module's coverage.
  public struct Module: Sendable, Equatable {
    /// The module's name, such as `Models`.
    public let name: String
    /// Its lines.
    public var lines: Count
    /// Its functions.
    public var functions: Count

    /// A module with nothing counted yet.
    static func empty(_ name: String) -> Module {
      Module(name: name, lines: Count(covered: 0, total: 0), functions: Count(covered: 0, total: 0))
    }
  }

  /// The modules, by name.
  public let modules: [Module]

  /// Reads the export of `llvm-cov export -summary-only`, keeping the files of `root`'s
  /// `Modules/` and `TestSupport/` folders; with `only` not empty, only those modules.
  ///
  /// - Throws: ``ToolError/malformedCoverage(_:)`` when the text is not JSON or lacks the
  ///   export's `data[0].files` list.
  public init(llvmCovExport text: String, root: String, only: Set<String> = []) throws(ToolError) {
    let value: JSONValue
    do {
      value = try JSONParser.parse(text)
    } catch {
      throw .malformedCoverage("the export is not JSON: \(error)")
    }
    guard let files = value["data"]?.arrayValue?.first?["files"]?.arrayValue else {
      throw .malformedCoverage("the export has no data[0].files list")
    }
    let prefix = root.hasSuffix("/") ? root : root + "/"
    var byName: [String: Module] = [:]
    for file in files {
      guard let path = file["filename"]?.stringValue, path.hasPrefix(prefix),
        let name = Self.module(ofRelativePath: String(path.dropFirst(prefix.count))),
        only.isEmpty || only.contains(name)
      else { continue }
      let summary = file["summary"]
      var module = byName[name] ?? .empty(name)
      module.lines.covered += Self.integer(summary?["lines"]?["covered"])
      module.lines.total += Self.integer(summary?["lines"]?["count"])
      module.functions.covered += Self.integer(summary?["functions"]?["covered"])
      module.functions.total += Self.integer(summary?["functions"]?["count"])
      byName[name] = module
    }
    modules = byName.values.sorted { $0.name < $1.name }
  }

  /// The module a path relative to the package root belongs to, if it is library code.
  static func module(ofRelativePath path: String) -> String? {
    let parts = path.split(separator: "/")
    if parts.count >= 3, parts[0] == "Modules" { return String(parts[1]) }
    if parts.count >= 2, parts[0] == "TestSupport" { return "TestSupport" }
    return nil
  }

  /// All modules together.
  public var total: Module {
    modules.reduce(into: .empty("all")) { sum, module in
      sum.lines.covered += module.lines.covered
      sum.lines.total += module.lines.total
      sum.functions.covered += module.functions.covered
      sum.functions.total += module.functions.total
    }
  }

  /// The modules whose line coverage is below `floor` percent.
  public func modules(below floor: Double) -> [Module] {
    modules.filter { $0.lines.percent < floor }
  }

  /// A table with a row per module and a total: lines and functions, covered of total, percent.
  public var table: String {
    let width = max(6, (modules.map(\.name.count).max() ?? 0) + 2)
    func pad(_ text: String, _ count: Int, left: Bool = false) -> String {
      let space = String(repeating: " ", count: max(0, count - text.count))
      return left ? text + space : space + text
    }
    func row(_ module: Module) -> String {
      pad(module.name, width, left: true)
        + pad("\(module.lines.covered)/\(module.lines.total)", 13)
        + pad(Self.percent(module.lines.percent), 9)
        + pad("\(module.functions.covered)/\(module.functions.total)", 13)
        + pad(Self.percent(module.functions.percent), 9) + "\n"
    }
    var out = pad("module", width, left: true) + pad("lines", 13) + pad("", 9)
    out += pad("functions", 13) + pad("", 9) + "\n"
    for module in modules { out += row(module) }
    return out + row(total)
  }

  /// The report as JSON: `{"modules": [{"name", "lines": {covered, total, percent}, "functions":
  /// {…}}], "total": {…}}`.
  public var json: JSONValue {
    func count(_ count: Count) -> JSONValue {
      .object([
        "covered": .integer(count.covered), "total": .integer(count.total),
        "percent": .double((count.percent * 100).rounded() / 100),
      ])
    }
    func entry(_ module: Module) -> JSONValue {
      .object([
        "name": .string(module.name), "lines": count(module.lines),
        "functions": count(module.functions),
      ])
    }
    return .object(["modules": .array(modules.map(entry)), "total": entry(total)])
  }

  /// ``json`` as text, one line.
  public var jsonText: String { String(decoding: json.serialized(), as: UTF8.self) }

  private static func percent(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded(.down))
    return "\(tenths / 10).\(tenths % 10) %"
  }

  private static func integer(_ value: JSONValue?) -> Int {
    if case .integer(let number)? = value { return number }
    return 0
  }
}
