import Foundation
import JSON
import Testing

/// Expects `text` to be a UUID string, recording `'…' is not a valid UUID string` otherwise.
@discardableResult
public func expectValidUUIDString(
  _ text: String?,
  sourceLocation: SourceLocation = #_sourceLocation
) -> UUID? {
  if let text, let uuid = UUID(uuidString: text) { return uuid }
  FailureRecorder(sourceLocation: sourceLocation)
    .record("'\(text ?? "nil")' is not a valid UUID string")
  return nil
}

/// Expects two dictionaries to be equal, recording missing keys, additional keys, and one message
/// per differing value: `Value for 'b' in 'payload' does not match 'expected'. 2 == 5`.
///
/// `names` says how the two dictionaries are called in the messages.
@discardableResult
public func expectEqualDictionaries<Key: Hashable, Value: Equatable>(
  _ actual: [Key: Value],
  _ expected: [Key: Value],
  names: (actual: String, expected: String) = ("actual", "expected"),
  sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  let recorder = FailureRecorder(sourceLocation: sourceLocation)
  var differences = DifferenceReport(names: names)
  differences.compareKeys(
    actual: Set(actual.keys.map { "\($0)" }), expected: Set(expected.keys.map { "\($0)" }), at: "")
  for (key, value) in actual {
    if let other = expected[key], other != value {
      differences.valueMismatch(at: "\(key)", actual: "\(value)", expected: "\(other)")
      differences.addDetail(StructuralDiff.lines(other, value))
    }
  }
  return differences.report(to: recorder)
}

/// Expects two values to be equal, and when they are not records the path to every part that
/// differs: the first value's part on a `-` line and the second's on a `+` line, as
/// swift-custom-dump's function of the same name reads.
///
/// ```swift
/// expectNoDifference(conversation, expectedConversation)
/// // - .name: "Lunch"      (conversation)
/// // + .name: "Dinner"     (expectedConversation)
/// ```
///
/// Arrays are compared by their difference: an element inserted or removed is one line, not every
/// later index.
@discardableResult
public func expectNoDifference<Value: Equatable>(
  _ expression1: Value,
  _ expression2: Value,
  sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  guard expression1 != expression2 else { return true }
  var lines = StructuralDiff.lines(expression1, expression2)
  if lines.isEmpty { lines = ["- \(expression1)", "+ \(expression2)"] }
  FailureRecorder(sourceLocation: sourceLocation).record(
    "\(Value.self) values differ (- first, + second):\n" + lines.joined(separator: "\n"))
  return false
}

/// Expects two JSON values to be equal, naming every difference by its key path
/// (`members[2].id`): missing and additional keys, different lengths, and differing values.
@discardableResult
public func expectEqualJSON(
  _ actual: JSONValue,
  _ expected: JSONValue,
  names: (actual: String, expected: String) = ("actual", "expected"),
  sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  let recorder = FailureRecorder(sourceLocation: sourceLocation)
  var differences = DifferenceReport(names: names)
  differences.compare(actual, expected, at: "")
  return differences.report(to: recorder)
}

/// Expects the two collections to hold the same elements the same number of times, in any order.
@discardableResult
public func expectSameElements<Element: Hashable>(
  _ actual: some Sequence<Element>,
  _ expected: some Sequence<Element>,
  sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  var counts: [Element: Int] = [:]
  for element in actual { counts[element, default: 0] += 1 }
  for element in expected { counts[element, default: 0] -= 1 }
  let extra = counts.filter { $0.value > 0 }.map { "\($0.key) (×\($0.value))" }.sorted()
  let missing = counts.filter { $0.value < 0 }.map { "\($0.key) (×\(-$0.value))" }.sorted()
  let recorder = FailureRecorder(sourceLocation: sourceLocation)
  if !missing.isEmpty { recorder.record("Missing elements: \(missing.joined(separator: ", "))") }
  if !extra.isEmpty { recorder.record("Additional elements: \(extra.joined(separator: ", "))") }
  return missing.isEmpty && extra.isEmpty
}

/// Expects `date` to lie no further than `tolerance` before now and not in the future beyond it.
@discardableResult
public func expectRecent(
  _ date: Date,
  within tolerance: TimeInterval = 5,
  now: Date = Date(),
  sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  let age = now.timeIntervalSince(date)
  guard abs(age) > tolerance else { return true }
  let direction = age > 0 ? "in the past" : "in the future"
  FailureRecorder(sourceLocation: sourceLocation)
    .record("\(date) is \(abs(age).rounded()) s \(direction), more than \(tolerance) s from now")
  return false
}

/// Collects the differences between two values as messages, then records them all.
struct DifferenceReport {
  let names: (actual: String, expected: String)
  private(set) var messages: [String] = []

  init(names: (actual: String, expected: String)) {
    self.names = names
  }

  mutating func compareKeys(actual: Set<String>, expected: Set<String>, at path: String) {
    let missing = expected.subtracting(actual).sorted().map { join(path, key: $0) }
    let additional = actual.subtracting(expected).sorted().map { join(path, key: $0) }
    if !missing.isEmpty {
      messages.append("'\(names.actual)' is missing keys: '\(missing.joined(separator: "', '"))'")
    }
    if !additional.isEmpty {
      messages.append(
        "'\(names.actual)' has additional keys: '\(additional.joined(separator: "', '"))'")
    }
  }

  /// Adds the lines of a structural diff under the message before them, when there are several:
  /// a one-line difference says nothing the message did not.
  mutating func addDetail(_ lines: [String]) {
    guard lines.count > 2, let last = messages.popLast() else { return }
    messages.append(last + "\n" + lines.map { "  " + $0 }.joined(separator: "\n"))
  }

  mutating func valueMismatch(at path: String, actual: String, expected: String) {
    messages.append(
      "Value for '\(path)' in '\(names.actual)' does not match '\(names.expected)'. "
        + "\(actual) == \(expected)")
  }

  mutating func compare(_ actual: JSONValue, _ expected: JSONValue, at path: String) {
    switch (actual, expected) {
    case (.object(let left), .object(let right)):
      compareKeys(actual: Set(left.keys), expected: Set(right.keys), at: path)
      for key in left.keys.sorted() {
        if let leftValue = left[key], let rightValue = right[key] {
          compare(leftValue, rightValue, at: join(path, key: key))
        }
      }
    case (.array(let left), .array(let right)):
      if left.count != right.count {
        messages.append(
          "'\(path.isEmpty ? "(root)" : path)' has \(left.count) elements in '\(names.actual)' "
            + "but \(right.count) in '\(names.expected)'")
      }
      for (index, pair) in zip(left, right).enumerated() {
        compare(pair.0, pair.1, at: path + "[\(index)]")
      }
    default:
      if actual != expected {
        valueMismatch(
          at: path.isEmpty ? "(root)" : path, actual: actual.jsonText, expected: expected.jsonText)
      }
    }
  }

  private func join(_ path: String, key: String) -> String {
    path.isEmpty ? key : path + "." + key
  }

  /// Records every message; returns whether there were none.
  func report(to recorder: FailureRecorder) -> Bool {
    for message in messages { recorder.record(message) }
    return messages.isEmpty
  }
}
