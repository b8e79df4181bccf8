import CourierTooling
import TestSupport
import Testing

@Suite("TagExpression", .tags(.tools), .timeBudget(.seconds(5)))
struct TagExpressionTests {
  @Test(
    "It reads and, or, not and parentheses with not tightest, then and, then or",
    arguments: zip(
      [
        "sync", "sync & !slow", "parsing | transport", "a | b & !c", "!(a | b) & c", " ( a|b ) &c ",
      ],
      [
        "sync", "(sync & !slow)", "(parsing | transport)", "(a | (b & !c))", "(!(a | b) & c)",
        "((a | b) & c)",
      ]))
  func parsing(text: String, parsed: String) throws {
    // when
    let expression = try TagExpression.parse(text)

    // then
    #expect(expression.description == parsed)
  }

  @Test(
    "It matches a test's tags as the expression says",
    arguments: [
      ("sync & !slow", ["sync"], true), ("sync & !slow", ["sync", "slow"], false),
      ("parsing | transport", ["transport"], true), ("parsing | transport", ["models"], false),
      ("!(a | b) & c", ["c"], true), ("!(a | b) & c", ["a", "c"], false),
      ("a | b & !c", ["a", "c"], true), ("a | b & !c", ["b", "c"], false),
    ] as [(String, Set<String>, Bool)])
  func matching(text: String, tags: Set<String>, expected: Bool) throws {
    // given
    let expression = try TagExpression.parse(text)

    // when
    let matches = expression.matches(tags)

    // then
    #expect(matches == expected)
  }

  @Test(
    "A malformed expression is refused with what was wrong",
    arguments: zip(
      ["", "a &", "(a | b", "a b", "a & | b", "!", "a % b"],
      [
        "expected a tag name, found the end", "expected a tag name, found the end",
        "a '(' is not closed", "unexpected 'b'", "expected a tag name, found '|'",
        "expected a tag name, found the end", "unexpected '%'",
      ]))
  func malformed(text: String, reason: String) {
    // when, then
    #expect(throws: ToolError.invalidTagExpression(text, reason: reason)) {
      try TagExpression.parse(text)
    }
  }

  @Test("A selection by expression runs exactly the matching functions, and names unknown tags")
  func selection() throws {
    // given
    let selection = TagSelection(records: TagSelectionTests.listing)

    // when
    let chosen = try selection.select(including: ["parsing & !slow | encoding"], excluding: [])

    // then
    #expect(chosen.map(\.displayName) == ["deep", "fast", "other"])
    #expect(throws: ToolError.unknownTag("nope", known: ["encoding", "parsing", "slow"])) {
      try selection.select(including: ["parsing | nope"], excluding: [])
    }
  }
}
