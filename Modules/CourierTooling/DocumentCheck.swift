import Foundation

/// What a user-facing document must not contain: history and figures belong in the changelog,
/// the history pages and the generated reports, and every relative link must lead somewhere.
///
/// The check reads Markdown. Prose and inline code are checked for every kind of finding; fenced
/// code blocks are checked only for dates and commit hashes, since a command such as
/// `Tools/simulate --seed N` or a budget such as `.seconds(30)` in an example is not history. A
/// date that starts an ISO 8601 timestamp (`2024-03-01T09:00:00Z`) is data, not a date of the
/// project's life. A duration written as a bound (`≤ 50 ms`, `at most 2 s`, `within 100 ms`,
/// `after 5 s`) is a goal or a rule; any other duration in prose is a measurement.
public enum DocumentCheck {
  /// One thing a document must not hold, with where it is.
  public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// What kind of thing was found.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
      /// A calendar date such as `2026-11-28`.
      case date
      /// The number of a search's seed: the word "seed" or "seeds" followed by a number.
      case seed
      /// An abbreviated or full commit hash.
      case commitHash = "commit hash"
      /// A measured duration such as "374 ms".
      case measuredTime = "measured time"
      /// A relative link whose file does not exist.
      case brokenLink = "broken link"
    }

    /// The document, as given to the check.
    public let document: String
    /// The line, from 1.
    public let line: Int
    /// What kind of thing was found.
    public let kind: Kind
    /// The text that was found.
    public let text: String

    /// Creates a finding.
    public init(document: String, line: Int, kind: Kind, text: String) {
      self.document = document
      self.line = line
      self.kind = kind
      self.text = text
    }

    /// The document, the line, the kind and the text found, separated by colons.
    public var description: String { "\(document):\(line): \(kind.rawValue): \"\(text)\"" }
  }

  /// Every finding in `markdown`, line by line.
  ///
  /// `linkExists` answers whether a relative link target (a path relative to the document's
  /// folder, without its `#fragment`) exists.
  public static func findings(
    in markdown: String, document: String, linkExists: (String) -> Bool
  ) -> [Finding] {
    var findings: [Finding] = []
    var inFence = false
    for (offset, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let text = String(line)
      let number = offset + 1
      if text.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        inFence.toggle()
        continue
      }
      func add(_ kind: Finding.Kind, _ found: [String]) {
        findings += found.map { Finding(document: document, line: number, kind: kind, text: $0) }
      }
      add(.date, matches(of: datePattern, in: text))
      add(.commitHash, commitHashes(in: text))
      if inFence { continue }
      add(.seed, matches(of: seedPattern, in: text))
      add(.measuredTime, measuredTimes(in: text))
      add(.brokenLink, relativeLinks(in: text).filter { !linkExists($0) })
    }
    return findings
  }

  /// A calendar date not followed by a time of day.
  static let datePattern = #"\b(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b(?!T)"#
  /// "seed" or "seeds", then a number, with or without a `#` before it.
  static let seedPattern = #"(?i)\bseeds?\s+#?\d+"#
  /// A number followed by a unit of time.
  static let durationPattern =
    #"(?<![\w.,])\d[\d,]*(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds?|min|minutes?|h|hours?)\b"#
  /// Words before a duration that make it a bound, not a measurement.
  static let boundWords = [
    "≤", "≥", "<", ">", "at most", "at least", "up to", "under", "within", "after", "every",
    "for", "budget", "budget of", "limit", "limit of", "timeout", "timeout of",
  ]

  static func matches(of pattern: String, in text: String) -> [String] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
      Range(match.range, in: text).map { String(text[$0]) }
    }
  }

  /// Runs of seven to forty lowercase hex digits holding both a digit and a letter, not part of
  /// a UUID or a longer word.
  static func commitHashes(in text: String) -> [String] {
    matches(of: #"(?<![\w-])[0-9a-f]{7,40}(?![\w-])"#, in: text).filter { run in
      run.contains(where: \.isNumber) && run.contains(where: \.isLetter)
    }
  }

  /// Durations in `text` that are not written as bounds.
  static func measuredTimes(in text: String) -> [String] {
    guard let regex = try? NSRegularExpression(pattern: durationPattern) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
      guard let found = Range(match.range, in: text) else { return nil }
      let before = text[..<found.lowerBound].suffix(14).lowercased()
        .trimmingCharacters(in: .whitespaces)
      if boundWords.contains(where: { before.hasSuffix($0) }) { return nil }
      if before.hasSuffix("`") || before.hasSuffix("(") { return nil }
      return String(text[found])
    }
  }

  /// The targets of the Markdown links in `text` that are neither web addresses nor fragments
  /// of the same page, without their fragments.
  static func relativeLinks(in text: String) -> [String] {
    matches(of: #"\]\(([^)\s]+)\)"#, in: text).compactMap { link in
      let target = String(link.dropFirst(2).dropLast())
      if target.hasPrefix("#") || target.contains("://") || target.hasPrefix("mailto:")
        || target.hasPrefix("doc:")
      {
        return nil
      }
      return target.split(separator: "#", maxSplits: 1).first.map(String.init)
    }
  }
}
