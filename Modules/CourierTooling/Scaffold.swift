import Foundation

/// The files `Tools/new-module` writes for a module: its first source file, its suite, and the
/// edits to the manifest and the tags file.
public struct Scaffold: Sendable {
  /// A file to write, relative to the repository root.
  public struct File: Sendable, Hashable {
    /// The file's path from the repository root.
    public let path: String
    /// The file's contents.
    public let contents: String
  }

  /// The module being added.
  public let name: ModuleName

  /// Creates the scaffold of `name`.
  public init(name: ModuleName) {
    self.name = name
  }

  /// The new files: `Modules/<Name>/<Name>.swift`, the module's documentation catalog
  /// `Modules/<Name>/<Name>.docc/<Name>.md`, and `Tests/<Name>Tests/<Name>Tests.swift`.
  public var files: [File] {
    [
      File(path: "Modules/\(name)/\(name).swift", contents: sourceFile),
      File(path: "Modules/\(name)/\(name).docc/\(name).md", contents: catalogPage),
      File(path: "Tests/\(name)Tests/\(name)Tests.swift", contents: testFile),
    ]
  }

  /// The catalog's root page, which `Tools/docs` requires: a title and an overview to fill in;
  /// the author adds its Topics section with the module's first real types.
  var catalogPage: String {
    """
    # ``\(name)``

    What \(name) is for, in one sentence.

    ## Overview

    What an app developer needs to know before using \(name): the main types and how they fit.

    """
  }

  /// `tagsFile` with a tag for the module added at the end of the module areas.
  ///
  /// - Throws: ``ToolError/unexpectedFile(path:reason:)`` if the file has no
  ///   `// MARK: - Cross-cutting` section to insert before.
  public func addingTag(to tagsFile: String) throws(ToolError) -> String {
    let marker = "  // MARK: - Cross-cutting"
    guard let range = tagsFile.range(of: marker) else {
      throw .unexpectedFile(
        path: "TestSupport/Tags.swift", reason: "has no `\(marker.trimmed)` section")
    }
    var text = tagsFile
    text.insert(
      contentsOf:
        "  /// Tests of the \(name) module.\n  @Tag package static var \(name.tagName): Self\n\n",
      at: range.lowerBound)
    return text
  }

  private var sourceFile: String {
    """
    /// The version of the \(name) module's API, so that code building on it can check what it
    /// gets; the module's first type, to grow from or replace.
    public struct \(name)Version: Sendable, Hashable, Comparable, CustomStringConvertible {
      /// The version this build of the module provides.
      public static let current = \(name)Version(major: 0, minor: 1)

      /// Raised for changes that break code using the module.
      public let major: Int
      /// Raised for additions that keep existing code working.
      public let minor: Int

      /// Creates a version; negative parts count as zero.
      public init(major: Int, minor: Int) {
        self.major = max(major, 0)
        self.minor = max(minor, 0)
      }

      /// Whether code written against `required` works with this version.
      public func satisfies(_ required: \(name)Version) -> Bool {
        major == required.major && minor >= required.minor
      }

      /// Orders by major, then minor.
      public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
      }

      /// Reads as `major.minor`.
      public var description: String { "\\(major).\\(minor)" }
    }

    """
  }

  private var testFile: String {
    """
    import \(name)
    import TestSupport
    import Testing

    @Suite("\(name)Version", .tags(.\(name.tagName)), .timeBudget(.seconds(5)))
    struct \(name)VersionTests {
      @Test(
        "It accepts versions with the same major and an equal or lower minor",
        arguments: zip(
          [\(name)Version(major: 0, minor: 0), \(name)Version(major: 0, minor: 2), \(name)Version(major: 1, minor: 0)],
          [true, false, false]))
      func satisfies(_ required: \(name)Version, _ expected: Bool) {
        // given
        let provided = \(name)Version(major: 0, minor: 1)

        // when
        let result = provided.satisfies(required)

        // then
        #expect(result == expected)
      }

      @Test("It orders by major, then minor, and reads as major.minor")
      func orderAndDescription() {
        // given
        let versions = [\(name)Version(major: 1, minor: 0), \(name)Version(major: 0, minor: 9)]

        // when
        let sorted = versions.sorted()

        // then
        #expect(sorted.map(\\.description) == ["0.9", "1.0"])
        #expect(\(name)Version(major: -1, minor: 3).description == "0.3")
      }
    }

    """
  }
}

extension String {
  fileprivate var trimmed: String { String(drop { $0 == " " }) }
}
