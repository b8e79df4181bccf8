/// Which test functions carry (or do not carry) given tags, counting the tags of every enclosing
/// suite, and the `--filter` expression that runs exactly them.
public struct TagSelection: Sendable {
  /// Every test and suite the selection chooses from.
  public let records: [TestRecord]
  private let effectiveTags: [String: Set<String>]

  /// Resolves the effective tags of `records`.
  public init(records: [TestRecord]) {
    self.records = records
    let own = Dictionary(records.map { ($0.path, $0.ownTags) }, uniquingKeysWith: { $0.union($1) })
    var effective: [String: Set<String>] = [:]
    for record in records {
      var tags = record.ownTags
      for suite in record.enclosingSuiteIDs { tags.formUnion(own[suite] ?? []) }
      effective[record.id] = tags
    }
    self.effectiveTags = effective
  }

  /// The tags of `record`, its own and those of its enclosing suites.
  public func tags(of record: TestRecord) -> Set<String> { effectiveTags[record.id] ?? [] }

  /// The test functions, in listing order.
  public var functions: [TestRecord] { records.filter { $0.kind == .function } }

  /// Each tag in use with the number of test functions carrying it, by name.
  public var tagCounts: [(tag: String, count: Int)] {
    var counts: [String: Int] = [:]
    for function in functions { for tag in tags(of: function) { counts[tag, default: 0] += 1 } }
    return counts.sorted { $0.key < $1.key }.map { (tag: $0.key, count: $0.value) }
  }

  /// The functions carrying every tag of `included` (all functions when it is empty) and none of
  /// `excluded`.
  ///
  /// - Throws: ``ToolError/unknownTag(_:known:)`` for a tag no test carries, and
  ///   ``ToolError/nothingSelected(_:)`` when nothing is left.
  public func select(including included: [String], excluding excluded: [String]) throws(ToolError)
    -> [TestRecord]
  {
    let known = Set(tagCounts.map(\.tag))
    for tag in included + excluded where !known.contains(tag) {
      throw .unknownTag(tag, known: known.sorted())
    }
    let chosen = functions.filter { function in
      let tags = tags(of: function)
      return included.allSatisfy(tags.contains) && excluded.allSatisfy { !tags.contains($0) }
    }
    guard !chosen.isEmpty else {
      let parts = included.map { "--tag \($0)" } + excluded.map { "--skip-tag \($0)" }
      throw .nothingSelected(parts.joined(separator: " "))
    }
    return chosen
  }

  /// A regular expression for `swift test --filter` that matches exactly `tests`.
  public static func filterExpression(for tests: [TestRecord]) -> String {
    tests.map { "^" + escapeRegex($0.path) + "/" }.joined(separator: "|")
  }

  /// `text` with every character that is special in a regular expression escaped.
  static func escapeRegex(_ text: String) -> String {
    let special: Set<Character> = [
      "\\", ".", "+", "*", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$",
    ]
    return String(text.flatMap { special.contains($0) ? ["\\", $0] : [$0] })
  }
}
