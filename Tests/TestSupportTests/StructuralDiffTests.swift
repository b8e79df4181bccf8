import Foundation
import TestSupport
import Testing

/// Values shaped like the model layer's, defined here so the helpers stay free of Courier's types.
private struct Group: Equatable {
  enum Kind: Equatable {
    case group
    case oneToOne
  }

  var name: String?
  var kind: Kind
  var members: Set<UUID>
  var tags: [String]
  var counts: [String: Int]
}

private enum Outcome: Equatable {
  case sent(status: Int)
  case failed(reason: String)
}

@Suite("StructuralDiff", .tags(.testSupport), .timeBudget(.seconds(5)))
struct StructuralDiffTests {
  private static let lunch = Group(
    name: "Lunch", kind: .group, members: [UUID(1), UUID(2)], tags: ["a", "b"],
    counts: ["x": 1, "y": 2])

  @Test("Equal values show no difference")
  func equalValues() {
    // when
    let lines = StructuralDiff.lines(Self.lunch, Self.lunch)

    // then
    #expect(lines.isEmpty)
  }

  @Test("It names the field that differs, with the expected and the actual value")
  func namesTheField() {
    // given
    var dinner = Self.lunch
    dinner.name = "Dinner"

    // when
    let lines = StructuralDiff.lines(Self.lunch, dinner)

    // then
    #expect(lines == ["- .name: \"Lunch\"", "+ .name: \"Dinner\""])
  }

  @Test("It lists set members that are missing or added, and array elements by index")
  func collections() {
    // given
    var changed = Self.lunch
    changed.members = [UUID(2), UUID(3)]
    changed.tags = ["a", "c", "d"]

    // when
    let lines = StructuralDiff.lines(Self.lunch, changed)

    // then
    #expect(
      lines == [
        "- .members: contains 00000000-0000-0000-0000-000000000001",
        "+ .members: contains 00000000-0000-0000-0000-000000000003",
        "- .tags[1]: \"b\"", "+ .tags[1]: \"c\"", "+ .tags[2]: \"d\"",
      ])
  }

  @Test("It compares dictionaries key by key and enums by case and payload")
  func dictionariesAndEnums() {
    // given
    var changed = Self.lunch
    changed.counts = ["x": 1, "y": 3, "z": 0]
    changed.kind = .oneToOne

    // when
    let groupLines = StructuralDiff.lines(Self.lunch, changed)
    let outcomeLines = StructuralDiff.lines(
      Outcome.failed(reason: "gone"), Outcome.failed(reason: "refused"))
    let caseLines = StructuralDiff.lines(
      Outcome.sent(status: 201), Outcome.failed(reason: "refused"))

    // then
    #expect(
      groupLines == [
        "- .kind: .group", "+ .kind: .oneToOne", "- .counts[\"y\"]: 2", "+ .counts[\"y\"]: 3",
        "+ .counts[\"z\"]: 0",
      ])
    #expect(outcomeLines == ["- .failed.reason: \"gone\"", "+ .failed.reason: \"refused\""])
    #expect(caseLines == ["- .sent(status: 201)", "+ .failed(reason: \"refused\")"])
  }

  @Test("An optional that becomes nil shows the whole value it had")
  func optionals() {
    // given
    var unnamed = Self.lunch
    unnamed.name = nil

    // when
    let lines = StructuralDiff.lines(Self.lunch, unnamed)

    // then
    #expect(lines == ["- .name: \"Lunch\"", "+ .name: nil"])
  }
}

extension StructuralDiffTests {
  @Test(
    "It compares lists by their difference, and elements replaced one for one part by part",
    arguments: [
      ([1, 2, 3, 4], [1, 9, 2, 3, 4], ["+ [1]: 9"]),
      ([1, 2, 3, 4], [2, 3, 4], ["- [0]: 1"]),
      ([1, 2, 3], [1, 7, 3], ["- [1]: 2", "+ [1]: 7"]),
      ([1, 2, 3], [4, 5], ["- [0]: 1", "- [1]: 2", "- [2]: 3", "+ [0]: 4", "+ [1]: 5"]),
    ])
  func listsByDifference(first: [Int], second: [Int], expected: [String]) {
    // when
    let lines = StructuralDiff.lines(first, second)

    // then
    #expect(lines == expected)
  }
}

@Suite("expectNoDifference", .tags(.testSupport), .timeBudget(.seconds(5)))
struct ExpectNoDifferenceTests {
  @Test("It passes for equal values")
  func passes() {
    // when
    let equal = expectNoDifference([1, 2], [1, 2])

    // then
    #expect(equal)
  }

  @Test("It fails with the path to each difference, at the caller's line")
  func failsNamingTheField() {
    // given
    let expected = Group(name: "Lunch", kind: .group, members: [], tags: [], counts: [:])
    var actual = expected
    actual.name = "Dinner"
    let line = #line + 4

    // when / then
    withKnownIssue {
      expectNoDifference(actual, expected)
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.mentions(
          "Group values differ (- first, + second):\n- .name: \"Dinner\"\n+ .name: \"Lunch\"")
    }
  }

  @Test("A dictionary whose values differ in several fields lists each field under the message")
  func dictionaryDetail() {
    // given
    let expected = ["g": Group(name: "A", kind: .group, members: [], tags: [], counts: [:])]
    let actual = ["g": Group(name: "B", kind: .oneToOne, members: [], tags: [], counts: [:])]

    // when / then
    withKnownIssue {
      expectEqualDictionaries(actual, expected)
    } matching: { issue in
      issue.mentions("Value for 'g' in 'actual' does not match 'expected'.")
        && issue.mentions("\n  - .name: \"A\"\n  + .name: \"B\"\n  - .kind: .group")
    }
  }
}
