import Foundation
import JSON
import TestSupport
import Testing

@Suite("Assertions", .tags(.testSupport), .timeBudget(.seconds(5)))
struct AssertionsTests {
  @Test(
    "It accepts valid UUID strings",
    arguments: ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"])
  func validUUIDStringPasses(text: String) {
    // when
    let uuid = expectValidUUIDString(text)

    // then
    #expect(uuid != nil)
  }

  @Test(
    "It names a string that is not a UUID",
    arguments: [
      "eeeee", "", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5Z",
    ])
  func invalidUUIDStringFails(text: String) {
    // when / then
    withKnownIssue {
      expectValidUUIDString(text)
    } matching: { issue in
      issue.mentions("'\(text)' is not a valid UUID string")
    }
  }

  @Test("It reports a differing value by key, naming both dictionaries")
  func dictionaryValueMismatch() {
    // given
    let payload = ["a": 2, "b": 2]
    let expected = ["a": 2, "b": 5]

    // when / then
    withKnownIssue {
      expectEqualDictionaries(payload, expected, names: ("payload", "expected"))
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Value for 'b' in 'payload' does not match 'expected'. 2 == 5"
      ]
    }
  }

  @Test("It reports missing and additional keys separately")
  func dictionaryKeyMismatch() {
    // given
    let payload = ["a": 1, "extra": 3]
    let expected = ["a": 1, "b": 2, "c": 3]

    // when / then
    withKnownIssue {
      expectEqualDictionaries(payload, expected, names: ("payload", "expected"))
    } matching: { issue in
      issue.mentions("'payload' is missing keys: 'b', 'c'")
        || issue.mentions("'payload' has additional keys: 'extra'")
    }
  }

  @Test("It passes equal dictionaries")
  func equalDictionariesPass() {
    // when
    let equal = expectEqualDictionaries(["a": [1, 2]], ["a": [1, 2]])

    // then
    #expect(equal)
  }

  @Test("It names a nested JSON difference by its key path")
  func jsonNestedKeyPath() {
    // given
    let actual: JSONValue = ["members": ["others": [["id": "a"], ["id": "b"], ["id": "x"]]]]
    let expected: JSONValue = ["members": ["others": [["id": "a"], ["id": "b"], ["id": "c"]]]]

    // when / then
    withKnownIssue {
      expectEqualJSON(actual, expected, names: ("payload", "expected"))
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        #"Value for 'members.others[2].id' in 'payload' does not match 'expected'. "x" == "c""#
      ]
    }
  }

  @Test(
    "It reports each kind of JSON difference",
    arguments: zip(
      [
        (["a": 1], ["a": 1, "b": 2]),
        (["a": 1, "z": true], ["a": 1]),
        (["list": [1, 2, 3]], ["list": [1, 2]]),
        (["a": "1"], ["a": 1]),
        (.null, ["a": 1]),
      ] as [(JSONValue, JSONValue)],
      [
        "'actual' is missing keys: 'b'",
        "'actual' has additional keys: 'z'",
        "'list' has 3 elements in 'actual' but 2 in 'expected'",
        #"Value for 'a' in 'actual' does not match 'expected'. "1" == 1"#,
        #"Value for '(root)' in 'actual' does not match 'expected'. null == {"a":1}"#,
      ]))
  func jsonDifferenceKinds(values: (JSONValue, JSONValue), message: String) {
    // when / then
    withKnownIssue {
      expectEqualJSON(values.0, values.1)
    } matching: { issue in
      issue.mentions(message)
    }
  }

  @Test("It passes equal JSON regardless of key order")
  func equalJSONPasses() {
    // when
    let equal = expectEqualJSON(["b": [1, nil], "a": "x"], ["a": "x", "b": [1, nil]])

    // then
    #expect(equal)
  }

  @Test("It accepts the same elements in any order")
  func sameElementsAnyOrder() {
    // when
    let same = expectSameElements([3, 1, 2, 1], [1, 1, 2, 3])

    // then
    #expect(same)
  }

  @Test("It counts elements, so a repeated element must repeat as often")
  func sameElementsCounted() {
    // when / then
    withKnownIssue {
      expectSameElements([1, 1, 2], [1, 2, 2])
    } matching: { issue in
      issue.mentions("Missing elements: 2 (×1)")
        || issue.mentions("Additional elements: 1 (×1)")
    }
  }

  @Test("It accepts a date close to now", arguments: [0, -3, 3] as [TimeInterval])
  func recentDate(offset: TimeInterval) {
    // given
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    // when
    let recent = expectRecent(now.addingTimeInterval(offset), within: 5, now: now)

    // then
    #expect(recent)
  }

  @Test(
    "It refuses a date far from now, saying in which direction",
    arguments: zip([-3_600, 600] as [TimeInterval], ["in the past", "in the future"]))
  func distantDate(offset: TimeInterval, direction: String) {
    // given
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    // when / then
    withKnownIssue {
      expectRecent(now.addingTimeInterval(offset), within: 5, now: now)
    } matching: { issue in
      issue.mentions("s \(direction), more than 5.0 s from now")
    }
  }

  @Test("It reports at the caller's line")
  func reportsAtCallerLine() {
    // given
    let line = #line + 4

    // when / then
    withKnownIssue {
      expectEqualDictionaries(["k": 1], ["k": 2])
    } matching: { issue in
      issue.sourceLocation?.line == line
    }
  }
}

@Suite("FailureRecorder", .tags(.testSupport), .timeBudget(.seconds(5)))
struct FailureRecorderTests {
  @Test("It records its message as a failure at the location it captured")
  func recordsAtCapturedLocation() {
    // given
    let recorder = FailureRecorder(
      sourceLocation: SourceLocation(
        fileID: "Models/Context.swift", filePath: "/x/Context.swift", line: 7, column: 3))

    // when / then
    withKnownIssue {
      recorder.record("payload differs")
    } matching: { issue in
      issue.sourceLocation?.fileID == "Models/Context.swift" && issue.sourceLocation?.line == 7
        && issue.severity == .error && issue.mentions("payload differs")
    }
  }
}
