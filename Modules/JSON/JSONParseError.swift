/// Why bytes could not be read as JSON: malformed text, or input beyond a documented limit.
public enum JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The text is not valid JSON; `offset` is the byte where reading stopped.
  case malformed(offset: Int, reason: String)
  /// A string held bytes that are not valid UTF-8.
  case invalidUTF8(offset: Int)
  /// Arrays and objects were nested deeper than the limit.
  case tooDeep(limit: Int, offset: Int)
  /// A string was longer, in UTF-8 bytes, than the limit.
  case stringTooLong(limit: Int, offset: Int)
  /// An array or object had more elements than the limit.
  case collectionTooLarge(limit: Int, offset: Int)
  /// The whole document was larger, in bytes, than the limit.
  case documentTooLarge(limit: Int, size: Int)
  /// An object named the same key twice.
  case duplicateKey(String, offset: Int)

  /// A sentence naming the problem and where it is.
  public var description: String {
    switch self {
    case .malformed(let offset, let reason): "malformed JSON at byte \(offset): \(reason)"
    case .invalidUTF8(let offset): "string at byte \(offset) is not valid UTF-8"
    case .tooDeep(let limit, let offset):
      "JSON nested deeper than \(limit) levels at byte \(offset)"
    case .stringTooLong(let limit, let offset):
      "string at byte \(offset) is longer than \(limit) bytes"
    case .collectionTooLarge(let limit, let offset):
      "array or object at byte \(offset) has more than \(limit) elements"
    case .documentTooLarge(let limit, let size):
      "JSON document of \(size) bytes exceeds \(limit) bytes"
    case .duplicateKey(let key, let offset):
      "key '\(key)' appears twice in the object at byte \(offset)"
    }
  }
}

/// The bounds a parse stays within, so hostile input costs bounded time and memory.
public struct JSONParseLimits: Sendable, Hashable {
  /// The deepest nesting of arrays and objects (default 64).
  public var maximumDepth: Int
  /// The longest string in UTF-8 bytes (default 1 MiB).
  public var maximumStringLength: Int
  /// The most elements in one array or members in one object (default 100,000).
  public var maximumCollectionCount: Int
  /// The largest document in bytes (default 16 MiB).
  public var maximumDocumentSize: Int
  /// What an object that names a key twice gets (default: refused).
  public var duplicateKeys: DuplicateKeys

  /// What the parser does with an object that names the same key twice.
  ///
  /// RFC 8259 leaves it open, and parsers differ: one keeps the first value, another the last.
  /// Two parsers that read one document differently are how a check in one component is
  /// bypassed in another, so Courier refuses such objects unless the caller chooses otherwise.
  public enum DuplicateKeys: Sendable, Hashable {
    /// The object is refused with ``JSONParseError/duplicateKey(_:offset:)``.
    case refuse
    /// The last value given for the key wins, as JavaScript's `JSON.parse` does.
    case keepLast
  }

  /// Creates limits; every value defaults to the documented default.
  public init(
    maximumDepth: Int = 64,
    maximumStringLength: Int = 1 << 20,
    maximumCollectionCount: Int = 100_000,
    maximumDocumentSize: Int = 16 << 20,
    duplicateKeys: DuplicateKeys = .refuse
  ) {
    self.maximumDepth = maximumDepth
    self.maximumStringLength = maximumStringLength
    self.maximumCollectionCount = maximumCollectionCount
    self.maximumDocumentSize = maximumDocumentSize
    self.duplicateKeys = duplicateKeys
  }

  /// The defaults: depth 64, strings of 1 MiB, 100,000 elements, documents of 16 MiB,
  /// duplicate keys refused.
  public static let standard = JSONParseLimits()
}
