import Foundation

/// Finds every test or suite that is disabled or enabled only under a condition, in Swift
/// source, with the reason it gives.
public struct DisabledTestScanner: Sendable {
  /// One disabled or conditional test or suite.
  public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// Whether the test never runs, or runs only when a condition holds.
    public enum Kind: String, Sendable, Hashable {
      /// `.disabled(…)`.
      case disabled
      /// `.enabled(if:…)`, `.disabled(if:…)`, `.disabled(under:…)` or a condition trait such
      /// as `.onlyWhenSlowTestsEnabled`.
      case conditional
    }

    /// The file, as given to the scanner.
    public let file: String
    /// The line of the `@Test` or `@Suite` attribute.
    public let line: Int
    /// The display name, or the declaration's name when there is none.
    public let name: String
    /// Disabled or conditional.
    public let kind: Kind
    /// The reason written next to the trait, or `nil` if there is none.
    public let reason: String?

    /// Reads as `file:line: name — kind: reason`.
    public var description: String {
      "\(file):\(line): \(name) — \(kind.rawValue): \(reason ?? "NO REASON GIVEN")"
    }
  }

  /// Condition traits of this project that carry their reason in their definition.
  public static let namedConditions: [String: String] = [
    ".onlyWhenSlowTestsEnabled": "runs only when COURIER_SLOW_TESTS=1"
  ]

  /// Creates a scanner.
  public init() {}

  /// The findings in `source`, the text of `file`.
  public func scan(_ source: String, file: String) -> [Finding] {
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var findings: [Finding] = []
    var index = 0
    while index < lines.count {
      let trimmed = lines[index].drop { $0 == " " }
      guard trimmed.hasPrefix("@Test") || trimmed.hasPrefix("@Suite") else {
        index += 1
        continue
      }
      let (attribute, end) = Self.attribute(startingAt: index, in: lines)
      let name = Self.displayName(in: attribute) ?? Self.declarationName(after: end, in: lines)
      for (kind, reason) in Self.conditions(in: attribute) {
        findings.append(
          Finding(file: file, line: index + 1, name: name, kind: kind, reason: reason))
      }
      index = end + 1
    }
    return findings
  }

  /// The attribute's text from its `@` to its balanced closing parenthesis, and its last line.
  private static func attribute(startingAt start: Int, in lines: [String]) -> (String, Int) {
    var text = ""
    var depth = 0
    var opened = false
    var index = start
    while index < lines.count {
      text += lines[index] + "\n"
      for character in lines[index] {
        if character == "(" {
          depth += 1
          opened = true
        }
        if character == ")" { depth -= 1 }
      }
      if !opened || depth <= 0 { break }
      index += 1
    }
    return (text, index)
  }

  private static func displayName(in attribute: String) -> String? {
    guard let open = attribute.firstIndex(of: "("),
      attribute[attribute.index(after: open)...].drop(while: { $0 == " " || $0 == "\n" })
        .first == "\""
    else { return nil }
    return firstString(in: attribute[open...])
  }

  private static func declarationName(after line: Int, in lines: [String]) -> String {
    for text in lines.dropFirst(line + 1).prefix(5) {
      for keyword in ["func ", "struct ", "class ", "enum ", "actor "] {
        if let range = text.range(of: keyword) {
          return String(
            text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
      }
    }
    return "(unnamed)"
  }

  private static func conditions(in attribute: String) -> [(Finding.Kind, String?)] {
    var found: [(Finding.Kind, String?)] = []
    var rest = Substring(attribute)
    while let range = [rest.range(of: ".disabled("), rest.range(of: ".enabled(")].compactMap({ $0 })
      .min(by: { $0.lowerBound < $1.lowerBound })
    {
      let arguments = balancedArguments(after: range.upperBound, in: rest)
      // `.disabled(under: sanitizer, …)` (TestSupport) skips a test only in a sanitized build.
      let label = arguments.drop { $0 == " " || $0 == "\n" }
      let conditional =
        rest[range].hasPrefix(".enabled") || label.hasPrefix("if:") || label.hasPrefix("under:")
      found.append((conditional ? .conditional : .disabled, reason(in: arguments)))
      rest = rest[range.upperBound...]
    }
    for (trait, reason) in namedConditions where attribute.contains(trait) {
      found.append((.conditional, reason))
    }
    return found
  }

  /// The trait's comment: its last top-level argument that is a string literal, so a string
  /// inside the condition (`environment["X"]`) is not taken for the reason.
  private static func reason(in arguments: Substring) -> String? {
    var parts: [Substring] = []
    var depth = 0
    var inString = false
    var start = arguments.startIndex
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let character = arguments[index]
      if character == "\"" { inString.toggle() }
      if !inString {
        if "([{".contains(character) { depth += 1 }
        if ")]}".contains(character) { depth -= 1 }
        if character == "," && depth == 0 {
          parts.append(arguments[start..<index])
          start = arguments.index(after: index)
        }
      }
      index = arguments.index(after: index)
    }
    parts.append(arguments[start..<arguments.endIndex])
    let literal = parts.last { $0.drop(while: \.isWhitespace).first == "\"" }
    return literal.flatMap { firstString(in: $0) }
  }

  private static func balancedArguments(after start: Substring.Index, in text: Substring)
    -> Substring
  {
    var depth = 1
    var index = start
    var inString = false
    while index < text.endIndex {
      let character = text[index]
      if character == "\"" { inString.toggle() }
      if !inString && character == "(" { depth += 1 }
      if !inString && character == ")" {
        depth -= 1
        if depth == 0 { break }
      }
      index = text.index(after: index)
    }
    return text[start..<index]
  }

  private static func firstString(in text: Substring) -> String? {
    guard let open = text.firstIndex(of: "\"") else { return nil }
    var result = ""
    var escaped = false
    for character in text[text.index(after: open)...] {
      if escaped {
        result.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "\"" {
        return result.isEmpty ? nil : result
      } else {
        result.append(character)
      }
    }
    return nil
  }
}
