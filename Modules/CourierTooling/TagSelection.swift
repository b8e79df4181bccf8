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

  /// The functions that meet every expression of `included` (all functions when it is empty)
  /// and none of `excluded`; each is a tag name or a ``TagExpression`` such as `sync & !slow`.
  ///
  /// - Throws: ``ToolError/invalidTagExpression(_:reason:)`` for an expression it cannot read,
  ///   ``ToolError/unknownTag(_:known:)`` for a tag no test carries, and
  ///   ``ToolError/nothingSelected(_:)`` when nothing is left.
  public func select(including included: [String], excluding excluded: [String]) throws(ToolError)
    -> [TestRecord]
  {
    var including: [TagExpression] = []
    var excluding: [TagExpression] = []
    for text in included { including.append(try TagExpression.parse(text)) }
    for text in excluded { excluding.append(try TagExpression.parse(text)) }
    let known = Set(tagCounts.map(\.tag))
    for expression in including + excluding {
      if let unknown = expression.tagNames.subtracting(known).sorted().first {
        throw .unknownTag(unknown, known: known.sorted())
      }
    }
    let chosen = functions.filter { function in
      let tags = tags(of: function)
      return including.allSatisfy { $0.matches(tags) }
        && excluding.allSatisfy { !$0.matches(tags) }
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
