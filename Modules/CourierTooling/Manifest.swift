import Foundation

/// The module table of `Package.swift`, read and extended as text, so a new module is one more
/// row written the way a contributor would write it.
public struct Manifest: Sendable {
  /// A row of the table: a module and the Courier modules it depends on.
  public struct Row: Sendable, Hashable {
    /// The module's name.
    public let name: String
    /// Its dependencies.
    public let dependencies: [String]
    /// Further modules its test suite uses.
    public var testDependencies: [String] = []
  }

  /// The manifest's text.
  public private(set) var text: String
  /// The rows of the module table, in order.
  public let rows: [Row]
  private let tableEnd: String.Index

  /// Reads the table that starts at `let modules: [Module] = [`.
  ///
  /// - Throws: ``ToolError/unexpectedFile(path:reason:)`` if there is no such table.
  public init(text: String) throws(ToolError) {
    self.text = text
    guard let start = text.range(of: "let modules: [Module] = [") else {
      throw .unexpectedFile(
        path: "Package.swift", reason: "has no `let modules: [Module] = [` table")
    }
    var depth = 1
    var index = start.upperBound
    while index < text.endIndex && depth > 0 {
      if text[index] == "[" { depth += 1 }
      if text[index] == "]" { depth -= 1 }
      if depth > 0 { index = text.index(after: index) }
    }
    guard depth == 0 else {
      throw .unexpectedFile(path: "Package.swift", reason: "has a module table that never closes")
    }
    tableEnd = index
    rows = Self.rows(in: String(text[start.upperBound..<index]))
  }

  /// The modules TestSupport builds on, which every suite therefore builds on too, read from
  /// `let testSupportDependencies = [`; empty if the manifest has no such list.
  public var testSupportDependencies: [String] {
    guard let start = text.range(of: "let testSupportDependencies = [") else { return [] }
    let close = text[start.upperBound...].firstIndex(of: "]") ?? text.endIndex
    return Self.quotedStrings(in: text[start.upperBound..<close])
  }

  /// The module names, in table order.
  public var moduleNames: [String] { rows.map(\.name) }

  /// Adds a row for `name` depending on `dependencies` at the end of the table.
  ///
  /// - Throws: ``ToolError/unknownDependency(_:known:)`` for a dependency that is not a module,
  ///   and ``ToolError/dependencyCycle(_:)`` if the new row would close a cycle.
  public mutating func addModule(_ name: ModuleName, dependsOn dependencies: [String])
    throws(ToolError)
  {
    let known = moduleNames
    for dependency in dependencies where dependency != name.rawValue && !known.contains(dependency)
    {
      throw .unknownDependency(dependency, known: known)
    }
    let graph = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0.dependencies) })
      .merging([name.rawValue: dependencies]) { $1 }
    if let cycle = Self.cycle(from: name.rawValue, in: graph) { throw .dependencyCycle(cycle) }
    let list = dependencies.map { "\"\($0)\"" }.joined(separator: ", ")
    let row =
      dependencies.isEmpty
      ? "  Module(\"\(name)\"),\n" : "  Module(\"\(name)\", dependsOn: [\(list)]),\n"
    text.insert(contentsOf: row, at: tableEnd)
  }

  private static func rows(in table: String) -> [Row] {
    var rows: [Row] = []
    var rest = Substring(table)
    while let start = rest.range(of: "Module(") {
      let afterOpen = rest[start.upperBound...]
      var depth = 1
      var index = afterOpen.startIndex
      while index < afterOpen.endIndex && depth > 0 {
        if afterOpen[index] == "(" { depth += 1 }
        if afterOpen[index] == ")" { depth -= 1 }
        index = afterOpen.index(after: index)
      }
      let body = afterOpen[..<index]
      let strings = quotedStrings(in: body)
      if let name = strings.first {
        let dependencies: [String]
        if let list = body.range(of: "dependsOn: [") {
          let close = body[list.upperBound...].firstIndex(of: "]") ?? body.endIndex
          dependencies = quotedStrings(in: body[list.upperBound..<close])
        } else {
          dependencies = []
        }
        var row = Row(name: name, dependencies: dependencies)
        if let list = body.range(of: "testDependencies: [") {
          let close = body[list.upperBound...].firstIndex(of: "]") ?? body.endIndex
          row.testDependencies = quotedStrings(in: body[list.upperBound..<close])
        }
        rows.append(row)
      }
      rest = afterOpen[index...]
    }
    return rows
  }

  private static func quotedStrings(in text: Substring) -> [String] {
    text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }

  /// A path of dependencies that leads from `start` back to it, if there is one.
  static func cycle(from start: String, in graph: [String: [String]]) -> [String]? {
    var visited: Set<String> = []
    func visit(_ node: String, path: [String]) -> [String]? {
      for next in graph[node] ?? [] {
        if next == start { return path + [next] }
        guard visited.insert(next).inserted else { continue }
        if let found = visit(next, path: path + [next]) { return found }
      }
      return nil
    }
    return visit(start, path: [start])
  }
}
