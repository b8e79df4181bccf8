import Foundation

/// Writes one keyed record field by field, byte for byte as ``RecordEncoder`` writes a keyed
/// container, without going through `Codable`.
///
/// The store writes every changed object and change-log record on each save; `Codable`'s
/// containers, boxes and generic lookups cost several times what SQLite does for the same rows.
/// A field left out reads back as `nil`, as in the `Codable` form.
struct RecordFields {
  /// The record so far: a placeholder byte for the field count, then the fields.
  private var bytes: [UInt8] = [0]
  private var count = 0

  init() {
    bytes.reserveCapacity(128)
  }

  /// The record: its field count, then its fields.
  consuming func finished() -> [UInt8] {
    bytes.setVarint(UInt64(count), at: 0)
    return bytes
  }

  private mutating func name(_ name: StaticString) {
    bytes.appendVarint(UInt64(name.utf8CodeUnitCount))
    name.withUTF8Buffer { bytes += $0 }
    count += 1
  }

  /// Writes a string field.
  mutating func write(_ name: StaticString, _ value: String) {
    self.name(name)
    bytes.appendField(value)
  }

  /// Writes an integer field, as a zigzag varint.
  mutating func write(_ name: StaticString, _ value: Int) {
    self.name(name)
    bytes.appendField(Int64(value))
  }

  /// Writes a Boolean field, as one byte.
  mutating func write(_ name: StaticString, _ value: Bool) {
    self.name(name)
    bytes.append(1)
    bytes.append(value ? 1 : 0)
  }

  /// Writes a UUID field, as its sixteen bytes.
  mutating func write(_ name: StaticString, _ value: UUID) {
    self.name(name)
    bytes.appendField(value)
  }

  /// Writes a date field, as the eight bytes of its seconds since 1970.
  mutating func write(_ name: StaticString, _ value: Date) {
    self.name(name)
    bytes.appendField(eightBytes: value.timeIntervalSince1970.bitPattern)
  }

  /// Writes a set of UUIDs, as a list of sixteen-byte parts, in the set's order.
  mutating func write(_ name: StaticString, _ value: Set<UUID>) {
    self.name(name)
    var list: [UInt8] = []
    list.reserveCapacity(value.count * 17 + 2)
    list.appendVarint(UInt64(value.count))
    for id in value { list.appendField(id) }
    part(list)
  }

  /// Writes a nested record, in place: placeholders for its length and field count are filled
  /// in once its fields are written.
  mutating func write(_ name: StaticString, _ value: some RecordWritable) throws {
    self.name(name)
    let lengthAt = bytes.count
    bytes += [0, 0]
    let outerCount = count
    count = 0
    defer { count = outerCount }
    try value.write(to: &self)
    bytes.setVarint(UInt64(count), at: lengthAt + 1)
    bytes.setVarint(UInt64(bytes.count - lengthAt - 1), at: lengthAt)
  }

  /// Writes any other value through ``RecordWriter``, the `Codable` form.
  mutating func write(_ name: StaticString, encoding value: some Encodable) throws {
    let encoded = try RecordWriter.bytes(of: value, codingPath: [])
    self.name(name)
    part(encoded)
  }

  /// Writes `value` unless it is `nil`, which reads back as a missing field.
  mutating func write<Value>(
    _ name: StaticString, _ value: Value?, _ write: (inout Self, StaticString, Value) -> Void
  ) {
    guard let value else { return }
    write(&self, name, value)
  }

  private mutating func part(_ part: [UInt8]) {
    bytes.appendVarint(UInt64(part.count))
    bytes += part
  }
}

extension [UInt8] {
  /// Puts `value` as a varint in place of the one-byte placeholder at `index`, widening it if the
  /// value needs more than one byte.
  mutating func setVarint(_ value: UInt64, at index: Int) {
    guard value >= 0x80 else {
      self[index] = UInt8(value)
      return
    }
    var varint: [UInt8] = []
    varint.appendVarint(value)
    replaceSubrange(index...index, with: varint)
  }
}
