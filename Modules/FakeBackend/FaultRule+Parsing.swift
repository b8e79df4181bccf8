import Foundation
import Transport

/// Why a written fault rule could not be read.
public enum FaultRuleParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The rule is not `METHOD PATH: FAULT [COUNT]`.
  case shape(String)
  /// The method is not a word of letters, or `*`.
  case method(String)
  /// The path does not start with `/`.
  case path(String)
  /// The fault is none the fake knows.
  case fault(String)
  /// The count is not `once`, `N times` or `always`.
  case count(String)
  /// What follows `after` is not a whole number of requests to let through first.
  case after(String)

  /// Names the part that is wrong and what it should be.
  public var description: String {
    switch self {
    case .shape(let text):
      "'\(text)' is not a fault rule: write METHOD PATH: FAULT [once|N times|always] [after N]"
    case .method(let text): "'\(text)' is not a method: write GET, POST, … or *"
    case .path(let text): "'\(text)' is not a path: it starts with /, and * matches a segment"
    case .fault(let text):
      "'\(text)' is not a fault: write status N [retry-after S], network connection-lost|"
        + "timed-out|offline|cannot-connect, delay DURATION (such as 500ms or 2s), park, "
        + "hold-answer, lose-response or malformed-body"
    case .count(let text): "'\(text)' is not a count: write once, N times or always"
    case .after(let text):
      "'\(text)' is not a number of requests to let through first: write after N, N from 1"
    }
  }
}

extension FaultRule {
  /// Reads a rule written as `METHOD PATH: FAULT [once|N times|always] [after N]`, such as
  /// `POST /conversations/*/messages: lose-response once` or `* /**: status 503 always`;
  /// `after N` lets the first N matching requests through, so that
  /// `POST /conversations/*/messages: hold-answer once after 2` holds the third message's answer.
  ///
  /// The faults are those of ``Fault``: `status N [retry-after S]`, `network
  /// connection-lost|timed-out|offline|cannot-connect`, `delay DURATION` (`500ms`, `2s`),
  /// `park`, `hold-answer`, `lose-response` and `malformed-body`. Without a count the rule
  /// applies once.
  ///
  /// - Throws: ``FaultRuleParseError`` naming the part that is wrong.
  public init(parsing text: String) throws(FaultRuleParseError) {
    guard let colon = text.firstIndex(of: ":") else { throw .shape(text) }
    let target = text[..<colon].split(separator: " ", omittingEmptySubsequences: true)
    guard target.count == 2 else { throw .shape(text) }
    let method = String(target[0])
    guard method == "*" || (method.allSatisfy(\.isLetter) && !method.isEmpty) else {
      throw .method(method)
    }
    let path = String(target[1])
    guard path.hasPrefix("/") else { throw .path(path) }
    let matcher = RequestMatcher(method == "*" ? nil : method, path)
    var words = text[text.index(after: colon)...].split(separator: " ").map(String.init)
    let skipped = try Self.skipped(removingFrom: &words)
    let count = try Self.count(removingFrom: &words)
    let fault = try Self.fault(words)
    let through = [Fault?](repeating: nil, count: skipped)
    switch count {
    case .times(let number):
      self = FaultRule(matcher, steps: through + [Fault?](repeating: fault, count: number))
    case .always:
      self = FaultRule(matcher, steps: through + [fault], repeatsLastStep: true)
    }
  }

  /// The number after a trailing `after`, taken off `words`; 0 when there is none.
  private static func skipped(removingFrom words: inout [String]) throws(FaultRuleParseError)
    -> Int
  {
    guard words.count >= 2, words[words.count - 2] == "after" else { return 0 }
    guard let number = Int(words[words.count - 1]), number > 0 else {
      throw .after(words[words.count - 1])
    }
    words.removeLast(2)
    return number
  }

  private enum Count {
    case times(Int)
    case always
  }

  /// The count at the end of `words`, taken off them; once when there is none.
  private static func count(removingFrom words: inout [String]) throws(FaultRuleParseError)
    -> Count
  {
    switch words.last {
    case "once"?:
      words.removeLast()
      return .times(1)
    case "always"?:
      words.removeLast()
      return .always
    case "times"?:
      guard words.count >= 2, let number = Int(words[words.count - 2]), number > 0 else {
        throw .count(words.suffix(2).joined(separator: " "))
      }
      words.removeLast(2)
      return .times(number)
    default:
      return .times(1)
    }
  }

  private static func fault(_ words: [String]) throws(FaultRuleParseError) -> Fault {
    let text = words.joined(separator: " ")
    switch words.first {
    case "status"?:
      guard words.count == 2 || (words.count == 4 && words[2] == "retry-after"),
        let status = Int(words[1]), (100...599).contains(status)
      else { throw .fault(text) }
      guard words.count == 4 else { return .status(status) }
      guard let seconds = Int(words[3]), seconds >= 0 else { throw .fault(text) }
      return .status(status, retryAfter: seconds)
    case "network"?:
      guard words.count == 2 else { throw .fault(text) }
      switch words[1] {
      case "connection-lost": return .network(.connectionLost)
      case "timed-out": return .network(.timedOut)
      case "offline": return .network(.offline)
      case "cannot-connect": return .network(.cannotConnect)
      default: throw .fault(text)
      }
    case "delay"?:
      guard words.count == 2, let duration = duration(words[1]) else { throw .fault(text) }
      return .delay(duration)
    case "park"? where words.count == 1: return .park
    case "hold-answer"? where words.count == 1: return .holdAnswer
    case "lose-response"? where words.count == 1: return .loseResponse
    case "malformed-body"? where words.count == 1: return .malformedBody
    default: throw .fault(text)
    }
  }

  /// `500ms` or `2s` (or `1.5s`) as a duration; `nil` otherwise.
  private static func duration(_ text: String) -> Duration? {
    if text.hasSuffix("ms"), let milliseconds = Int(text.dropLast(2)), milliseconds >= 0 {
      return .milliseconds(milliseconds)
    }
    if text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds >= 0,
      seconds.isFinite
    {
      return .milliseconds(Int((seconds * 1_000).rounded()))
    }
    return nil
  }
}
