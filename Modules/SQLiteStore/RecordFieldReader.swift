import Foundation

/// Reads one keyed record field by field, as ``RecordDecoder`` reads a keyed container, without
/// going through `Codable`.
///
/// Opening a store reads every object and change-log record; `Codable`'s containers, boxes and
/// coding paths cost more than SQLite does for the same rows. Bytes that do not hold the record
/// are a `DecodingError` naming the field, as in the `Codable` form; a missing optional field is
/// `nil`, and fields the reader does not ask for are skipped.
struct RecordFieldReader {
  /// The fields, after the count; checked whole when the reader is made.
  private let fields: RecordBytes
  /// Where the field after the last one found starts: fields are most often asked for in the
  /// order they were written.
  private var next: Int
  /// Where the record is, for errors.
  let codingPath: [any CodingKey]

  /// A reader of the record in `bytes`, checking that its fields fill it exactly.
  init(_ bytes: RecordBytes, codingPath: [any CodingKey]) throws {
    self.codingPath = codingPath
    fields = try RecordReader.fields(of: bytes, codingPath)
    next = fields.startIndex
  }

  /// Reads a record of `type` from `buffer`.
  static func read<Value: RecordReadable>(
    _ type: Value.Type, from buffer: UnsafeBufferPointer<UInt8>
  ) throws -> Value {
    var reader = try RecordFieldReader(
      Slice(base: buffer, bounds: buffer.indices), codingPath: [])
    return try Value(reading: &reader)
  }

  // MARK: - Fields

  /// The value of field `name`, if the record has it.
  private mutating func field(_ name: StaticString) -> RecordBytes? {
    if let found = find(name, from: next, to: fields.endIndex) { return found }
    return find(name, from: fields.startIndex, to: next)
  }

  private mutating func find(_ name: StaticString, from start: Int, to end: Int) -> RecordBytes? {
    guard let bytes = fields.start else { return nil }
    var index = start
    while index < end {
      // The bytes were checked when the reader was made: every length is there and fits.
      let (nameLength, nameStart) = length(at: index, of: bytes)
      let afterName = nameStart + nameLength
      guard afterName < end else { return nil }
      let (valueLength, valueStart) = length(at: afterName, of: bytes)
      let afterValue = valueStart + valueLength
      guard afterValue <= fields.endIndex else { return nil }
      if nameLength == name.utf8CodeUnitCount,
        name.withUTF8Buffer({ RecordReader.spells($0, at: bytes + nameStart) })
      {
        next = afterValue
        return fields[valueStart..<afterValue]
      }
      index = afterValue
    }
    return nil
  }

  /// The length at `index` of the checked fields, which start at `bytes`, and where it ends.
  ///
  /// Most lengths take one byte.
  private func length(at index: Int, of bytes: UnsafePointer<UInt8>) -> (Int, Int) {
    let first = bytes[index]
    if first < 0x80 { return (Int(first), index + 1) }
    let (length, start) = (try? RecordReader.varint(fields, at: index, [])) ?? (0, fields.endIndex)
    return (Int(truncatingIfNeeded: length), start)
  }

  private mutating func required(_ name: StaticString) throws -> RecordBytes {
    guard let value = field(name) else {
      throw DecodingError.keyNotFound(
        FieldKey(name),
        .init(codingPath: codingPath, debugDescription: "the record has no '\(name)'"))
    }
    return value
  }

  private func path(_ name: StaticString) -> [any CodingKey] { codingPath + [FieldKey(name)] }

  // MARK: - Typed fields

  /// The string in field `name`.
  mutating func string(_ name: StaticString) throws -> String {
    try RecordReader.string(try required(name), path(name))
  }

  /// The string in field `name`, or `nil` if the record has none.
  mutating func optionalString(_ name: StaticString) throws -> String? {
    guard let bytes = field(name) else { return nil }
    return try RecordReader.string(bytes, path(name))
  }

  /// The integer in field `name`.
  mutating func integer(_ name: StaticString) throws -> Int {
    try integer(try required(name), name)
  }

  /// The integer in field `name`, or `nil` if the record has none.
  mutating func optionalInteger(_ name: StaticString) throws -> Int? {
    guard let bytes = field(name) else { return nil }
    return try integer(bytes, name)
  }

  private func integer(_ bytes: RecordBytes, _ name: StaticString) throws -> Int {
    try RecordReader.fitting(try RecordReader.integer(bytes, path(name)), path(name))
  }

  /// The Boolean in field `name`.
  mutating func bool(_ name: StaticString) throws -> Bool {
    try RecordReader.bool(try required(name), path(name))
  }

  /// The UUID in field `name`.
  mutating func uuid(_ name: StaticString) throws -> UUID {
    try uuid(try required(name), name)
  }

  /// The UUID in field `name`, or `nil` if the record has none.
  mutating func optionalUUID(_ name: StaticString) throws -> UUID? {
    guard let bytes = field(name) else { return nil }
    return try uuid(bytes, name)
  }

  private func uuid(_ bytes: RecordBytes, _ name: StaticString) throws -> UUID {
    guard let uuid = RecordReader.uuid(bytes) else {
      throw RecordReader.corrupt(path(name), "a UUID needs 16 bytes")
    }
    return uuid
  }

  /// The date in field `name`.
  mutating func date(_ name: StaticString) throws -> Date {
    Date(timeIntervalSince1970: try RecordReader.double(try required(name), path(name)))
  }

  /// The date in field `name`, or `nil` if the record has none.
  mutating func optionalDate(_ name: StaticString) throws -> Date? {
    guard let bytes = field(name) else { return nil }
    return Date(timeIntervalSince1970: try RecordReader.double(bytes, path(name)))
  }

  /// The set of UUIDs in field `name`, a list of sixteen-byte parts.
  mutating func uuidSet(_ name: StaticString) throws -> Set<UUID> {
    let elements = try RecordReader.elements(of: try required(name), path(name))
    var ids = Set<UUID>(minimumCapacity: elements.count)
    for element in elements {
      guard let id = RecordReader.uuid(element) else {
        throw RecordReader.corrupt(path(name), "a UUID needs 16 bytes")
      }
      ids.insert(id)
    }
    return ids
  }

  /// The value of field `name` kept by its raw value, a string.
  mutating func raw<Value: RawRepresentable>(_ name: StaticString, as type: Value.Type) throws
    -> Value where Value.RawValue == String
  {
    try value(name, from: try string(name))
  }

  /// The value of field `name` kept by its raw value, an integer.
  mutating func raw<Value: RawRepresentable>(_ name: StaticString, as type: Value.Type) throws
    -> Value where Value.RawValue == Int
  {
    try value(name, from: try integer(name))
  }

  /// The value whose raw value field `name` holds; a raw value of no value is an error naming it.
  private func value<Value: RawRepresentable>(_ name: StaticString, from raw: Value.RawValue)
    throws -> Value
  {
    guard let value = Value(rawValue: raw) else {
      throw RecordReader.corrupt(path(name), "\(raw) is not a \(Value.self)")
    }
    return value
  }

  /// The nested record in field `name`, or `nil` if the record has none.
  mutating func record<Value: RecordReadable>(_ name: StaticString, as type: Value.Type) throws
    -> Value?
  {
    guard let bytes = field(name) else { return nil }
    var nested = try RecordFieldReader(bytes, codingPath: path(name))
    return try Value(reading: &nested)
  }

  /// The value in field `name` read through `Codable`, or `nil` if the record has none.
  mutating func decoding<Value: Decodable>(_ name: StaticString, as type: Value.Type) throws
    -> Value?
  {
    guard let bytes = field(name) else { return nil }
    return try RecordReader.decode(type, from: bytes, codingPath: path(name))
  }
}

/// A field's name, as the coding key an error names it by.
private struct FieldKey: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }
  init(_ name: StaticString) { stringValue = "\(name)" }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
