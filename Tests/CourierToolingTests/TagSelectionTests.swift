import CourierTooling
import TestSupport
import Testing

@Suite("TagSelection", .tags(.tools), .timeBudget(.seconds(5)))
struct TagSelectionTests {
  /// A listing with a tagged suite, a nested suite without tags, and a tagged function.
  static let listing = [
    TestRecord(id: "ATests.ParserTests", displayName: "Parser", kind: .suite, ownTags: ["parsing"]),
    TestRecord(id: "ATests.ParserTests/Nested", displayName: "Nested", kind: .suite),
    TestRecord(
      id: "ATests.ParserTests/Nested/deep()/ParserTests.swift:9:4", displayName: "deep",
      kind: .function),
    TestRecord(
      id: "ATests.ParserTests/fast()/ParserTests.swift:3:4", displayName: "fast", kind: .function),
    TestRecord(
      id: "ATests.ParserTests/huge(_:)/ParserTests.swift:5:4", displayName: "huge",
      kind: .function, ownTags: ["slow"]),
    TestRecord(
      id: "BTests.OtherTests/other()/OtherTests.swift:1:1", displayName: "other", kind: .function,
      ownTags: ["encoding"]),
  ]

  @Test("A function inherits the tags of every enclosing suite")
  func inheritance() {
    // given
    let selection = TagSelection(records: Self.listing)

    // when
    let deep = selection.tags(of: Self.listing[2])

    // then
    #expect(deep == ["parsing"])
    #expect(selection.tags(of: Self.listing[4]) == ["parsing", "slow"])
  }

  @Test(
    "It selects the functions with all included tags and none of the excluded ones",
    arguments: zip(
      [
        [["parsing"], []], [["parsing"], ["slow"]], [[], ["parsing"]], [["parsing", "slow"], []],
      ],
      [["deep()", "fast()", "huge(_:)"], ["deep()", "fast()"], ["other()"], ["huge(_:)"]]))
  func selection(_ filters: [[String]], _ expected: [String]) throws {
    // given
    let selection = TagSelection(records: Self.listing)

    // when
    let chosen = try selection.select(including: filters[0], excluding: filters[1])

    // then
    #expect(chosen.map { $0.path.split(separator: "/").last.map(String.init) ?? "" } == expected)
  }

  @Test("A tag no test carries is refused with the tags in use")
  func unknownTag() {
    // given
    let selection = TagSelection(records: Self.listing)

    // when
    let error = #expect(throws: ToolError.self) {
      try selection.select(including: ["parsnip"], excluding: [])
    }

    // then
    #expect(error == .unknownTag("parsnip", known: ["encoding", "parsing", "slow"]))
    #expect(error?.description.contains("no test carries the tag 'parsnip'") == true)
  }

  @Test("Filters that leave nothing are an error naming the filters")
  func nothingLeft() {
    // given
    let selection = TagSelection(records: Self.listing)

    // when
    let error = #expect(throws: ToolError.self) {
      try selection.select(including: ["encoding"], excluding: ["encoding"])
    }

    // then
    #expect(error == .nothingSelected("--tag encoding --skip-tag encoding"))
  }

  @Test("It counts the functions carrying each tag, inherited tags included")
  func tagCounts() {
    // when
    let counts = TagSelection(records: Self.listing).tagCounts

    // then
    #expect(counts.map(\.tag) == ["encoding", "parsing", "slow"])
    #expect(counts.map(\.count) == [1, 3, 1])
  }

  @Test("The filter expression anchors each test's path and escapes regex characters")
  func filterExpression() throws {
    // given
    let tests = [Self.listing[4], Self.listing[5]]

    // when
    let expression = TagSelection.filterExpression(for: tests)

    // then
    #expect(expression == #"^ATests\.ParserTests/huge\(_:\)/|^BTests\.OtherTests/other\(\)/"#)
    let regex = try Regex(expression)
    #expect(Self.listing.map(\.id).filter { $0.contains(regex) }.count == 2)
  }
}

@Suite("TestRecord", .tags(.tools), .timeBudget(.seconds(5)))
struct TestRecordTests {
  @Test("It reads test and suite records from an event stream and skips other lines")
  func readsEventStream() throws {
    // given
    let stream = """
      {"kind":"test","payload":{"_tags":[".models"],"displayName":"Stack","id":"MTests.StackTests","kind":"suite","sourceLocation":{"fileID":"MTests/StackTests.swift","line":6}},"version":0}
      {"kind":"event","payload":{"kind":"runStarted"},"version":0}
      {"kind":"test","payload":{"displayName":"It merges","id":"MTests.StackTests/merge()/StackTests.swift:9:4","isParameterized":false,"kind":"function","sourceLocation":{"fileID":"MTests/StackTests.swift","line":9}},"version":0}
      """

    // when
    let records = try TestRecord.records(fromEventStream: stream)

    // then
    #expect(records.map(\.kind) == [.suite, .function])
    #expect(records[0].ownTags == ["models"])
    #expect(records[1].path == "MTests.StackTests/merge()")
    #expect(records[1].enclosingSuiteIDs == ["MTests.StackTests"])
    #expect(records[1].target == "MTests")
    #expect(records[1].line == 9)
  }

  @Test("A line that is not JSON is an error naming the line")
  func malformedLine() {
    // when
    let error = #expect(throws: ToolError.self) {
      try TestRecord.records(fromEventStream: "{\"kind\":\"test\"}\nnot json")
    }

    // then
    if case .malformedEventStream(let line, _)? = error {
      #expect(line == 2)
    } else {
      Issue.record("expected malformedEventStream, got \(String(describing: error))")
    }
  }
}
