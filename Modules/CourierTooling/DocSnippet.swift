import Foundation

/// A Swift code block of a Markdown document, turned into source that compiles against Courier,
/// so that the examples in the README and CONTRIBUTING cannot drift from the code.
///
/// A block of statements becomes the body of an async throwing function on the main actor,
/// which then reads each value the block names at its top level (an example may end on the
/// value it shows, and still compile with warnings as errors); a
/// block of declarations is nested in an enum of its own, so two examples may declare the same
/// name; an `extension` block stays at file scope. `import` lines are moved to the top of the
/// file. A hidden setup may precede the block in an HTML comment, for values the reader need not
/// see:
///
/// ````markdown
/// <!-- snippet-setup
/// let data = Data("{}".utf8)
/// -->
/// ```swift
/// let connection = try ConnectionPayload.parse(data)
/// ```
/// ````
///
/// The generated source carries `#sourceLocation` lines, so a compile error names the document
/// and the line of the block.
public struct DocSnippet: Sendable, Hashable {
  /// How a block is placed in the generated file.
  public enum Placement: Sendable, Hashable {
    /// Statements, run in a function.
    case statements
    /// Declarations, nested in an enum.
    case declarations
    /// Extensions, which Swift allows only at file scope.
    case fileScope
  }

  /// The document the block comes from, such as `README.md`.
  public let document: String
  /// The line of the block's first line of code in the document, from 1.
  public let line: Int
  /// The block's code, without its fences.
  public let code: String
  /// The hidden setup before the block, if any.
  public let setup: String?

  /// Creates a snippet.
  public init(document: String, line: Int, code: String, setup: String? = nil) {
    self.document = document
    self.line = line
    self.code = code
    self.setup = setup
  }

  /// Every Swift code block (fenced with three backticks and `swift`) of `markdown`, in order,
  /// but package manifests (blocks that start with `// swift-tools-version`).
  public static func extract(from markdown: String, document: String) -> [DocSnippet] {
    var snippets: [DocSnippet] = []
    let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var index = 0
    var pendingSetup: String?
    while index < lines.count {
      let line = lines[index]
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("<!-- snippet-setup") {
        var setup: [String] = []
        index += 1
        while index < lines.count, !lines[index].contains("-->") {
          setup.append(lines[index])
          index += 1
        }
        pendingSetup = setup.joined(separator: "\n")
        index += 1
        continue
      }
      if trimmed.hasPrefix("```") {
        let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
        let indent = line.prefix { $0 == " " }.count
        var body: [String] = []
        let start = index + 2
        index += 1
        while index < lines.count,
          !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```")
        {
          body.append(
            String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count))))
          index += 1
        }
        // A package manifest compiles only against PackageDescription, so it is left out.
        let isManifest = body.first?.hasPrefix("// swift-tools-version") ?? false
        if language == "swift", !isManifest {
          snippets.append(
            DocSnippet(
              document: document, line: start, code: body.joined(separator: "\n"),
              setup: pendingSetup))
        }
        pendingSetup = nil
        index += 1
        continue
      }
      if !trimmed.isEmpty { pendingSetup = nil }
      index += 1
    }
    return snippets
  }

  /// Where the block goes: statements unless every line at the top level declares something.
  public var placement: Placement {
    let topLevel = code.split(separator: "\n").map(String.init).filter { line in
      guard let first = line.first, first != " " else { return false }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      return !trimmed.isEmpty && !trimmed.hasPrefix("//") && !trimmed.hasPrefix("}")
        && !trimmed.hasPrefix(")") && !trimmed.hasPrefix("import ")
    }
    if topLevel.contains(where: { $0.hasPrefix("extension ") }) { return .fileScope }
    let declares = topLevel.allSatisfy { line in
      Self.declarationStarts.contains { line.hasPrefix($0) }
    }
    return declares && !topLevel.isEmpty ? .declarations : .statements
  }

  private static let declarationStarts = [
    "@", "public ", "private ", "internal ", "fileprivate ", "final ", "struct ", "class ",
    "enum ", "protocol ", "actor ", "func ", "typealias ", "extension ",
  ]

  /// What every generated file imports: Foundation and the test helpers examples use freely.
  public static let commonImports = ["import Foundation", "import TestSupport", "import Testing"]

  /// The imports the block and its setup name.
  public var imports: [String] {
    (code + "\n" + (setup ?? "")).split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { $0.hasPrefix("import ") }
  }

  /// The block as a Swift source file, the `number`th of the generated ones.
  ///
  /// - Parameters:
  ///   - number: The block's position among the generated files, which names its wrapper.
  ///   - commonImports: Imports every generated file starts with.
  public func source(number: Int, commonImports: [String]) -> String {
    let body = code.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
      .joined(separator: "\n")
    let imports = Array(Set(commonImports + imports)).sorted().joined(separator: "\n")
    let location = "#sourceLocation(file: \"\(document)\", line: \(line))"
    let setupLines =
      setup.map { setup in
        setup.split(separator: "\n", omittingEmptySubsequences: false)
          .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
          .joined(separator: "\n") + "\n"
      } ?? ""
    let name = "snippet\(number)"
    switch placement {
    case .statements:
      let uses = topLevelValueNames.map { "_ = \($0)\n" }.joined()
      return """
        \(imports)

        @MainActor
        func \(name)() async throws {
        \(setupLines)\(location)
        \(body)
        #sourceLocation()
        \(uses)}

        """
    case .declarations:
      return """
        \(imports)

        enum \(name.capitalizedFirst) {
        \(setupLines)\(location)
        \(body)
        #sourceLocation()
        }

        """
    case .fileScope:
      return """
        \(imports)

        \(setupLines)\(location)
        \(body)
        #sourceLocation()

        """
    }
  }
}

extension DocSnippet {
  /// The names a statement block binds with `let` or `var` at its top level, in order.
  ///
  /// An example often ends on the value it shows, which nothing then reads; the generated
  /// function reads each of these once, so that the examples compile with warnings as errors.
  var topLevelValueNames: [String] {
    var names: [String] = []
    for line in code.split(separator: "\n") {
      guard let keyword = ["let ", "var "].first(where: { line.hasPrefix($0) }) else { continue }
      let name = line.dropFirst(keyword.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      if let first = name.first, !first.isNumber, !names.contains(String(name)) {
        names.append(String(name))
      }
    }
    return names
  }
}

extension String {
  fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
