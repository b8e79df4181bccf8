import CourierTooling
import TestSupport
import Testing

@Suite("ToolError", .tags(.tools), .timeBudget(.seconds(5)))
struct ToolErrorTests {
  @Test(
    "Every refusal says what was wrong in words a contributor can act on",
    arguments: zip(
      [
        ToolError.malformedEventStream(line: 3, reason: "bad JSON"),
        .unknownTag("x", known: ["a", "b"]),
        .nothingSelected("--tag a"),
        .invalidModuleName("foo", reason: "it must start with a capital"),
        .unknownDependency("Jason", known: ["JSON"]), .dependencyCycle(["A", "B", "A"]),
        .unexpectedFile(path: "Package.swift", reason: "has no table"),
      ],
      [
        "the event stream is not readable at line 3: bad JSON",
        "no test carries the tag 'x'; tags in use: a, b",
        "no test matches --tag a",
        "cannot use 'foo' as a module name: it must start with a capital",
        "unknown dependency 'Jason'; modules: JSON", "the dependencies form a cycle: A → B → A",
        "Package.swift has no table",
      ]))
  func descriptions(_ error: ToolError, _ expected: String) {
    // when
    let text = error.description

    // then
    #expect(text == expected)
  }
}
