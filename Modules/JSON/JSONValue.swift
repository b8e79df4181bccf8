/// A JSON document held as a Swift value: what the backend sends and what Courier sends back.
///
/// Numbers without a fraction or exponent that fit in `Int` are `.integer`; every other number is
/// `.double`. Objects keep no key order; ``JSONValue/serialized()`` sorts keys so that
/// the same value always produces the same bytes.
public enum JSONValue: Sendable, Hashable {
  /// The literal `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number written without a fraction or exponent that fits in `Int`.
  case integer(Int)
  /// Any other number.
  case double(Double)
  /// A string.
  case string(String)
  /// An ordered list of values.
  case array([JSONValue])
  /// A map from keys to values.
  case object([String: JSONValue])
}

extension JSONValue {
  /// The kind of this value, as error messages name it ("string", "object", …).
  public var kind: JSONKind {
    switch self {
    case .null: .null
    case .bool: .bool
    case .integer: .integer
    case .double: .number
    case .string: .string
    case .array: .array
    case .object: .object
    }
  }

  /// The members of an object, or `nil` for any other kind.
  public var objectValue: [String: JSONValue]? {
    if case .object(let members) = self { members } else { nil }
  }

  /// The elements of an array, or `nil` for any other kind.
  public var arrayValue: [JSONValue]? {
    if case .array(let elements) = self { elements } else { nil }
  }

  /// The text of a string, or `nil` for any other kind.
  public var stringValue: String? {
    if case .string(let text) = self { text } else { nil }
  }

  /// The member named `key` of an object; `nil` when absent or when this is not an object.
  public subscript(key: String) -> JSONValue? {
    objectValue?[key]
  }
}

/// The kinds of JSON value, used to say what a field should be and what was found instead.
public enum JSONKind: String, Sendable, Hashable, CustomStringConvertible {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool = "boolean"
  /// A whole number.
  case integer
  /// A number with a fraction or an exponent.
  case number
  /// A string.
  case string
  /// An array.
  case array
  /// An object.
  case object

  /// The kind's name as it reads in a message.
  public var description: String { rawValue }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  /// Creates `null`.
  public init(nilLiteral: ()) { self = .null }
  /// Creates a boolean.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// Creates a whole number.
  public init(integerLiteral value: Int) { self = .integer(value) }
  /// Creates a number with a fraction.
  public init(floatLiteral value: Double) { self = .double(value) }
  /// Creates a string.
  public init(stringLiteral value: String) { self = .string(value) }
  /// Creates an array.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// Creates an object; a repeated key keeps its last value.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
}
