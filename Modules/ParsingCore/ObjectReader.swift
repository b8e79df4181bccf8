import Foundation
import JSON

/// Reads typed fields out of one JSON object and collects an error for every bad one.
///
/// Each accessor returns the value or `nil`, recording a ``FieldError`` with the field's key path
/// on `nil`, so a parser reads every field, then throws once with all the errors:
///
/// ```swift
/// var reader = ObjectReader(object)
/// let id = reader.uuid("id")
/// let name = reader.string("name", nonEmpty: true)
/// guard let id, let name, reader.errors.isEmpty else { throw reader.failure }
/// ```
public struct ObjectReader: Sendable {
  /// The object being read.
  public let object: [String: JSONValue]
  /// The key path of the object itself; empty at the payload's root.
  public let path: String
  /// Every bad field seen so far.
  public private(set) var errors: [FieldError] = []

  /// Reads `object`, found at `path` in the payload.
  public init(_ object: [String: JSONValue], path: String = "") {
    self.object = object
    self.path = path
  }

  /// The error to throw: all recorded field errors.
  public var failure: PayloadError { .invalidFields(errors) }

  /// The key path of `key` in this object.
  public func keyPath(_ key: String) -> String {
    path.isEmpty ? key : "\(path).\(key)"
  }

  /// Records a field error for `key` in this object.
  public mutating func record(
    _ key: String, _ problem: FieldError.Problem, expected: String, found: JSONValue?
  ) {
    errors.append(
      FieldError(
        keyPath: keyPath(key), problem: problem, expected: expected,
        found: found.map { Self.describe($0) } ?? "nothing"))
  }

  /// Adds errors found while reading a nested value.
  public mutating func append(_ nested: [FieldError]) {
    errors += nested
  }

  /// The value for `key`, recording `missing` or `null` when it is absent or null.
  public mutating func required(_ key: String, expected: String) -> JSONValue? {
    switch object[key] {
    case .none:
      record(key, .missing, expected: expected, found: nil)
      return nil
    case .null?:
      record(key, .null, expected: expected, found: .null)
      return nil
    case let value?:
      return value
    }
  }

  /// A required string; with `nonEmpty`, an empty string is an invalid value.
  public mutating func string(_ key: String, nonEmpty: Bool = false) -> String? {
    let expected = nonEmpty ? "non-empty string" : "string"
    guard let value = required(key, expected: expected) else { return nil }
    guard case .string(let text) = value else {
      record(key, .wrongType, expected: expected, found: value)
      return nil
    }
    if nonEmpty && text.isEmpty {
      record(key, .invalidValue, expected: expected, found: value)
      return nil
    }
    return text
  }

  /// An optional string: absent or `null` give `.some(nil)`; another kind is recorded and gives `nil`.
  public mutating func optionalString(_ key: String) -> String?? {
    switch object[key] {
    case .none, .null?: return .some(nil)
    case .string(let text)?: return .some(text)
    case let value?:
      record(key, .wrongType, expected: "string or null", found: value)
      return nil
    }
  }

  /// A required whole number.
  public mutating func integer(_ key: String) -> Int? {
    guard let value = required(key, expected: "integer") else { return nil }
    guard case .integer(let number) = value else {
      record(key, .wrongType, expected: "integer", found: value)
      return nil
    }
    return number
  }

  /// A required boolean.
  public mutating func bool(_ key: String) -> Bool? {
    guard let value = required(key, expected: "boolean") else { return nil }
    guard case .bool(let flag) = value else {
      record(key, .wrongType, expected: "boolean", found: value)
      return nil
    }
    return flag
  }

  /// A required UUID string.
  public mutating func uuid(_ key: String) -> UUID? {
    guard let value = required(key, expected: "UUID string") else { return nil }
    return uuid(key, from: value)
  }

  /// An optional UUID string: absent or `null` give `.some(nil)`.
  public mutating func optionalUUID(_ key: String) -> UUID?? {
    switch object[key] {
    case .none, .null?: return .some(nil)
    case let value?: return uuid(key, from: value).map { .some($0) }
    }
  }

  private mutating func uuid(_ key: String, from value: JSONValue) -> UUID? {
    guard case .string(let text) = value else {
      record(key, .wrongType, expected: "UUID string", found: value)
      return nil
    }
    guard let uuid = UUID(text: text) else {
      record(key, .invalidValue, expected: "UUID string", found: value)
      return nil
    }
    return uuid
  }

  /// A required ISO 8601 date string.
  public mutating func date(_ key: String) -> Date? {
    let expected = "ISO 8601 date string"
    guard let value = required(key, expected: expected) else { return nil }
    guard case .string(let text) = value else {
      record(key, .wrongType, expected: expected, found: value)
      return nil
    }
    guard let date = ISO8601Timestamp.parse(text) else {
      record(key, .invalidValue, expected: expected, found: value)
      return nil
    }
    return date
  }

  /// A required string that must be one of the raw values of `Value`.
  public mutating func oneOf<Value: RawRepresentable & CaseIterable>(
    _ key: String, _ type: Value.Type
  ) -> Value? where Value.RawValue == String {
    // The list of raw values is only written for an error, not for every value read.
    if case .string(let text)? = object[key], let parsed = Value(rawValue: text) { return parsed }
    let expected = "one of " + Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    guard let value = required(key, expected: expected) else { return nil }
    guard case .string(let text) = value else {
      record(key, .wrongType, expected: expected, found: value)
      return nil
    }
    guard let parsed = Value(rawValue: text) else {
      record(key, .invalidValue, expected: expected, found: value)
      return nil
    }
    return parsed
  }

  /// A required object, read by `read` with a nested reader whose errors are kept.
  public mutating func object<Value>(
    _ key: String, _ read: (inout ObjectReader) -> Value?
  ) -> Value? {
    guard let value = required(key, expected: "object") else { return nil }
    guard case .object = value else {
      record(key, .wrongType, expected: "object", found: value)
      return nil
    }
    return Self.readNested(value, path: keyPath(key), errors: &errors, read)
  }

  /// A required array of objects, each read by `read` with a nested reader; a bad element's
  /// errors carry its index (`others[2].id`), and an element that is not an object is reported.
  public mutating func objects<Element>(
    _ key: String, _ read: @escaping (inout ObjectReader) -> Element?
  ) -> [Element]? {
    array(key) { element, path, errors in
      Self.readNested(element, path: path, errors: &errors, read)
    }
  }

  /// Reads `value` at `path` with a nested reader, adding its errors, or a wrong-type error when
  /// it is not an object, to `errors`.
  static func readNested<Value>(
    _ value: JSONValue, path: String, errors: inout [FieldError],
    _ read: (inout ObjectReader) -> Value?
  ) -> Value? {
    guard case .object(let members) = value else {
      errors.append(
        FieldError(keyPath: path, problem: .wrongType, expected: "object", found: describe(value)))
      return nil
    }
    var nested = ObjectReader(members, path: path)
    let result = read(&nested)
    errors += nested.errors
    return nested.errors.isEmpty ? result : nil
  }

  /// A required array whose elements are each read by `read`, with the element's index in its path.
  public mutating func array<Element>(
    _ key: String, _ read: (JSONValue, String, inout [FieldError]) -> Element?
  ) -> [Element]? {
    guard let value = required(key, expected: "array") else { return nil }
    guard case .array(let elements) = value else {
      record(key, .wrongType, expected: "array", found: value)
      return nil
    }
    var result: [Element] = []
    result.reserveCapacity(elements.count)
    let before = errors.count
    for (index, element) in elements.enumerated() {
      if let parsed = read(element, "\(keyPath(key))[\(index)]", &errors) { result.append(parsed) }
    }
    return errors.count == before ? result : nil
  }

  /// JSON text of `value`, shortened so one message stays readable.
  static func describe(_ value: JSONValue) -> String {
    let text = value.jsonText
    return text.count > 80 ? String(text.prefix(77)) + "..." : text
  }
}

extension ObjectReader {
  /// A required whole number that must be one of the raw values of `Value`.
  public mutating func oneOf<Value: RawRepresentable & CaseIterable>(
    _ key: String, _ type: Value.Type
  ) -> Value? where Value.RawValue == Int {
    if case .integer(let number)? = object[key], let parsed = Value(rawValue: number) {
      return parsed
    }
    let expected = "one of " + Value.allCases.map { "\($0.rawValue)" }.joined(separator: ", ")
    guard let value = required(key, expected: expected) else { return nil }
    guard case .integer(let number) = value else {
      record(key, .wrongType, expected: expected, found: value)
      return nil
    }
    guard let parsed = Value(rawValue: number) else {
      record(key, .invalidValue, expected: expected, found: value)
      return nil
    }
    return parsed
  }

  /// A required array of UUID strings.
  public mutating func uuids(_ key: String) -> [UUID]? {
    array(key) { element, path, errors in
      guard case .string(let text) = element, let uuid = UUID(text: text) else {
        errors.append(
          FieldError(
            keyPath: path, problem: element.kind == .string ? .invalidValue : .wrongType,
            expected: "UUID string", found: Self.describe(element)))
        return nil
      }
      return uuid
    }
  }
}

extension UUID {
  /// The UUID as the backend writes it: lowercase.
  public var jsonValue: JSONValue { .string(lowercasedText) }
}

extension Date {
  /// The date as the backend writes it: ISO 8601 in UTC with milliseconds.
  public var jsonValue: JSONValue { .string(ISO8601Timestamp.format(self)) }
}
