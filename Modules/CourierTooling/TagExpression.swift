/// A condition on a test's tags: tag names joined by `&` (and), `|` (or) and `!` (not), with
/// parentheses, as `Tools/test --tag 'sync & !slow'` takes it.
///
/// `!` binds tightest, then `&`, then `|`: `a | b & !c` is `a | (b & (!c))`. A tag name is
/// letters, digits, `_`, `-` and `.`.
public indirect enum TagExpression: Sendable, Hashable, CustomStringConvertible {
  /// The test carries this tag.
  case tag(String)
  /// The condition does not hold.
  case not(TagExpression)
  /// Both conditions hold.
  case and(TagExpression, TagExpression)
  /// Either condition holds.
  case or(TagExpression, TagExpression)

  /// Reads an expression; a malformed one is ``ToolError/invalidTagExpression(_:reason:)``.
  public static func parse(_ text: String) throws(ToolError) -> TagExpression {
    var parser = Parser(text: text)
    let expression = try parser.readOr()
    guard parser.atEnd else { throw parser.error("unexpected '\(parser.peek ?? " ")'") }
    return expression
  }

  /// Whether a test carrying `tags` meets the condition.
  public func matches(_ tags: Set<String>) -> Bool {
    switch self {
    case .tag(let name): tags.contains(name)
    case .not(let inner): !inner.matches(tags)
    case .and(let left, let right): left.matches(tags) && right.matches(tags)
    case .or(let left, let right): left.matches(tags) || right.matches(tags)
    }
  }

  /// Every tag name the expression mentions.
  public var tagNames: Set<String> {
    switch self {
    case .tag(let name): [name]
    case .not(let inner): inner.tagNames
    case .and(let left, let right), .or(let left, let right): left.tagNames.union(right.tagNames)
    }
  }

  /// The expression, fully parenthesised.
  public var description: String {
    switch self {
    case .tag(let name): name
    case .not(let inner): "!\(inner)"
    case .and(let left, let right): "(\(left) & \(right))"
    case .or(let left, let right): "(\(left) | \(right))"
    }
  }

  /// A recursive-descent reader over the expression's characters.
  private struct Parser {
    let text: String
    let characters: [Character]
    var position = 0

    init(text: String) {
      self.text = text
      characters = Array(text)
    }

    var atEnd: Bool { peek == nil }

    /// The next character that is not a blank, if any.
    var peek: Character? {
      var copy = self
      copy.skipBlanks()
      return copy.position < copy.characters.count ? copy.characters[copy.position] : nil
    }

    func error(_ reason: String) -> ToolError {
      .invalidTagExpression(text, reason: reason)
    }

    mutating func skipBlanks() {
      while position < characters.count, characters[position] == " " { position += 1 }
    }

    mutating func take(_ character: Character) -> Bool {
      skipBlanks()
      guard position < characters.count, characters[position] == character else { return false }
      position += 1
      return true
    }

    mutating func readOr() throws(ToolError) -> TagExpression {
      var expression = try readAnd()
      while take("|") { expression = .or(expression, try readAnd()) }
      return expression
    }

    mutating func readAnd() throws(ToolError) -> TagExpression {
      var expression = try readNot()
      while take("&") { expression = .and(expression, try readNot()) }
      return expression
    }

    mutating func readNot() throws(ToolError) -> TagExpression {
      if take("!") { return .not(try readNot()) }
      if take("(") {
        let inner = try readOr()
        guard take(")") else { throw error("a '(' is not closed") }
        return inner
      }
      skipBlanks()
      let start = position
      while position < characters.count, Self.isNameCharacter(characters[position]) {
        position += 1
      }
      guard position > start else {
        let found = position < characters.count ? "'\(characters[position])'" : "the end"
        throw error("expected a tag name, found \(found)")
      }
      return .tag(String(characters[start..<position]))
    }

    static func isNameCharacter(_ character: Character) -> Bool {
      character.isLetter || character.isNumber || character == "_" || character == "-"
        || character == "."
    }
  }
}
