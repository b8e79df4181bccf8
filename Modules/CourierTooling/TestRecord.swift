import JSON

/// One test or suite as `swift test list` describes it in its event stream.
public struct TestRecord: Sendable, Hashable {
  /// Whether the record is a test function or a suite.
  public enum Kind: String, Sendable, Hashable {
    /// A `@Test` function.
    case function
    /// A `@Suite` type.
    case suite
  }

  /// The full id, such as `ModelsTests.ModelStackTests/Merging/syncToUI()/ModelStackTests.swift:32:6`.
  public let id: String
  /// The name shown in results.
  public let displayName: String
  /// Function or suite.
  public let kind: Kind
  /// The tags written on this test or suite itself, without the leading dot.
  public let ownTags: Set<String>
  /// The file the test is declared in, relative to its module, such as `ModelsTests/X.swift`.
  public let fileID: String
  /// The line of the declaration.
  public let line: Int

  /// Creates a record.
  public init(
    id: String, displayName: String, kind: Kind, ownTags: Set<String> = [], fileID: String = "",
    line: Int = 0
  ) {
    self.id = id
    self.displayName = displayName
    self.kind = kind
    self.ownTags = ownTags
    self.fileID = fileID
    self.line = line
  }

  /// The id without a trailing source location: `Module.Suite/Nested/test()`.
  public var path: String {
    guard kind == .function, let slash = id.lastIndex(of: "/") else { return id }
    let last = id[id.index(after: slash)...]
    return last.contains(".swift:") ? String(id[..<slash]) : id
  }

  /// The ids of the suites that enclose this record, innermost first.
  public var enclosingSuiteIDs: [String] {
    var components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    var ids: [String] = []
    while components.count > 1 {
      components.removeLast()
      ids.append(components.joined(separator: "/"))
    }
    return ids
  }

  /// The test target the record belongs to, such as `ModelsTests`.
  public var target: String {
    String(path.prefix { $0 != "." && $0 != "/" })
  }

  /// Reads the `test` records of an event stream (`--event-stream-version 0`), one JSON object per
  /// line; lines of other kinds are skipped.
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for a line that is not JSON or a
  ///   test record without an id.
  public static func records(fromEventStream text: String) throws(ToolError) -> [TestRecord] {
    var records: [TestRecord] = []
    for (number, line) in text.split(separator: "\n").enumerated() {
      let value: JSONValue
      do {
        value = try JSONParser.parse(String(line))
      } catch {
        throw .malformedEventStream(line: number + 1, reason: "\(error)")
      }
      if let record = try record(from: value, line: number + 1) { records.append(record) }
    }
    return records
  }

  /// The test record one event-stream line holds, or `nil` for a line of another kind.
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for a test record without an id.
  static func record(from value: JSONValue, line number: Int) throws(ToolError) -> TestRecord? {
    guard value["kind"]?.stringValue == "test", let payload = value["payload"] else { return nil }
    guard let id = payload["id"]?.stringValue else {
      throw .malformedEventStream(line: number, reason: "a test record has no id")
    }
    let tags = (payload["_tags"]?.arrayValue ?? []).compactMap(\.stringValue).map {
      $0.hasPrefix(".") ? String($0.dropFirst()) : $0
    }
    let location = payload["sourceLocation"]
    var line = 0
    if case .integer(let value)? = location?["line"] { line = value }
    return TestRecord(
      id: id, displayName: payload["displayName"]?.stringValue ?? id,
      kind: payload["kind"]?.stringValue == "suite" ? .suite : .function,
      ownTags: Set(tags), fileID: location?["fileID"]?.stringValue ?? "", line: line)
  }
}
