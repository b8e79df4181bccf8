import CourierTooling
import Foundation
import TestSupport
import Testing

@Suite("DocSnippet", .tags(.tools), .timeBudget(.seconds(5)))
struct DocSnippetTests {
  static let markdown = """
    # Title

    ```sh
    swift build
    ```

    <!-- snippet-setup
    import JSON
    let data = Data()
    -->
    ```swift
    import Models
    let stack = ModelStack.inMemory()
    ```

    Some prose.

    ```swift
    @Suite("X")
    struct XTests {
      @Test func works() { #expect(Bool(true)) }
    }
    ```

    ```swift
    extension Tag {
      @Tag static var mine: Self
    }
    ```
    """

  @Test("It finds every Swift block with its line and its hidden setup, and skips other languages")
  func extracts() {
    // when
    let snippets = DocSnippet.extract(from: Self.markdown, document: "README.md")

    // then
    #expect(snippets.map(\.line) == [12, 19, 26])
    #expect(snippets.map(\.setup) == ["import JSON\nlet data = Data()", nil, nil])
    #expect(snippets.first?.code == "import Models\nlet stack = ModelStack.inMemory()")
  }

  @Test("It leaves out a package manifest, which compiles only against PackageDescription")
  func skipsManifest() {
    // given
    let markdown = "```swift\n// swift-tools-version: 6.1\nimport PackageDescription\n```\n"

    // when
    let snippets = DocSnippet.extract(from: markdown, document: "README.md")

    // then
    #expect(snippets.isEmpty)
  }

  /// Blocks of each kind, beside the placement each gets.
  static let blocks = [
    "let x = 1\nprint(x)", "@Suite struct A {\n  let x = 1\n}", "struct A {}\nlet a = A()",
    "extension Tag {\n  static let x = 1\n}", "// only a comment\nfunc f() {}",
  ]
  static let placements: [DocSnippet.Placement] = [
    .statements, .declarations, .statements, .fileScope, .declarations,
  ]

  @Test(
    "It places statements in a function, declarations in an enum and extensions at file scope",
    arguments: zip(blocks, placements))
  func placement(code: String, expected: DocSnippet.Placement) {
    // given
    let snippet = DocSnippet(document: "README.md", line: 1, code: code)

    // when
    let placement = snippet.placement

    // then
    #expect(placement == expected)
  }

  @Test(
    "The source hoists imports, keeps the setup hidden before the block, and points errors at the document"
  )
  func source() {
    // given
    let snippet = DocSnippet(
      document: "README.md", line: 12, code: "import Models\nlet stack = ModelStack.inMemory()",
      setup: "import JSON\nlet data = Data()")

    // when
    let source = snippet.source(number: 3, commonImports: ["import Foundation"])

    // then
    #expect(
      source == """
        import Foundation
        import JSON
        import Models

        @MainActor
        func snippet3() async throws {
        let data = Data()
        #sourceLocation(file: "README.md", line: 12)
        let stack = ModelStack.inMemory()
        #sourceLocation()
        _ = stack
        }

        """)
  }

  @Test(
    "A statement block uses each value it names at its top level, so an example that ends on a value builds without warnings",
    arguments: zip(
      [
        "let a = 1\nvar b = a\nb += 1",
        "let a = 1\nif true {\n  let inner = a\n  print(inner)\n}",
        "let a = 1\nlet a2: Int = a",
        "print(1)",
        "letter()\nvariable()",
      ],
      [["a", "b"], ["a"], ["a", "a2"], [], []]))
  func usesTopLevelValues(code: String, used: [String]) {
    // given
    let snippet = DocSnippet(document: "README.md", line: 1, code: code)

    // when
    let source = snippet.source(number: 1, commonImports: [])

    // then
    let tail = source.components(separatedBy: "#sourceLocation()\n").last ?? ""
    #expect(tail == used.map { "_ = \($0)\n" }.joined() + "}\n")
  }

  @Test("Declarations are nested in an enum named after the snippet")
  func declarationsSource() {
    // given
    let snippet = DocSnippet(document: "CONTRIBUTING.md", line: 4, code: "struct A {}")

    // when
    let source = snippet.source(number: 7, commonImports: [])

    // then
    #expect(
      source.contains(
        "enum Snippet7 {\n#sourceLocation(file: \"CONTRIBUTING.md\", line: 4)\nstruct A {}"))
  }
}
