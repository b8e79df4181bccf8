import Foundation
import JSON

/// A value that can be read from, and written back to, a backend JSON object.
public protocol PayloadConvertible: Sendable {
  /// Reads the value from a JSON object found at `path`, collecting every bad field in `reader`.
  static func read(from reader: inout ObjectReader) -> Self?

  /// The value as the backend writes it; `parse(encode(x))` gives `x` back.
  var jsonValue: JSONValue { get }
}

extension PayloadConvertible {
  /// Parses raw bytes from the backend, reporting every bad field at once.
  public static func parse(
    _ data: Data, limits: JSONParseLimits = .standard
  ) throws(PayloadError) -> Self {
    try parse(PayloadError.decode(data, limits: limits))
  }

  /// Parses an already decoded JSON value.
  public static func parse(_ value: JSONValue) throws(PayloadError) -> Self {
    try parse(value, path: "")
  }

  /// Parses a JSON value found at `path` in a larger payload.
  public static func parse(_ value: JSONValue, path: String) throws(PayloadError) -> Self {
    guard case .object(let members) = value else { throw .notAnObject(found: value.kind) }
    var reader = ObjectReader(members, path: path)
    guard let result = read(from: &reader), reader.errors.isEmpty else { throw reader.failure }
    return result
  }

  /// The value's JSON text, as the fake backend sends it.
  public func encoded() -> Data {
    Data(jsonValue.serialized())
  }
}

extension ObjectReader {
  /// A required nested payload at `key`.
  public mutating func payload<Value: PayloadConvertible>(_ key: String, _ type: Value.Type)
    -> Value?
  {
    object(key) { nested in Value.read(from: &nested) }
  }

  /// A required array of payloads at `key`; every bad element's fields are reported.
  public mutating func payloads<Value: PayloadConvertible>(_ key: String, _ type: Value.Type)
    -> [Value]?
  {
    objects(key) { Value.read(from: &$0) }
  }
}
