import Foundation

/// Writes `Codable` values in Courier's compact binary record format, the one the SQLite store
/// keeps objects and change-log records in.
///
/// A keyed container is its field count, then its fields, each as its key's name and its value's
/// bytes, both with their lengths, so a reader can find a field by name and skip what it does not
/// know; an unkeyed container is its element count, then its elements with their lengths; a
/// single value is its bytes. Integers are zigzag varints, UUIDs 16 bytes, dates and doubles 8
/// bytes, strings UTF-8. The counts make a record cut short at a field's end unreadable rather
/// than read as a different value.
struct RecordEncoder {
  /// The bytes of `value`: written field by field if it is ``RecordWritable``, else through
  /// `Codable`.
  func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
    if let writable = value as? any RecordWritable { return try writable.record }
    return try RecordWriter.bytes(of: value, codingPath: [])
  }

  /// A function that encodes values of `type` as ``encode(_:)`` does, with the question of
  /// whether the type is ``RecordWritable`` answered once, not for each value.
  func encoder<Value: Encodable>(for type: Value.Type) -> (Value) throws -> [UInt8] {
    func fieldByField<Writable: RecordWritable>(_: Writable.Type) -> (Value) throws -> [UInt8] {
      guard Value.self == Writable.self else {
        return { try RecordWriter.bytes(of: $0, codingPath: []) }
      }
      // The two are one type: a value of one is a value of the other, without a cast per value.
      return { value in
        try withUnsafePointer(to: value) { pointer in
          try pointer.withMemoryRebound(to: Writable.self, capacity: 1) { try $0.pointee.record }
        }
      }
    }
    guard let writable = type as? any RecordWritable.Type else {
      return { try RecordWriter.bytes(of: $0, codingPath: []) }
    }
    return fieldByField(writable)
  }
}

/// Encodes values straight into byte buffers: a container appends each part as it comes.
enum RecordWriter {
  /// The bytes of `value`, in its compact form for UUIDs, dates and data.
  static func bytes<Value: Encodable>(of value: Value, codingPath: [any CodingKey]) throws
    -> [UInt8]
  {
    switch value {
    case let uuid as UUID: return uuid.bytes
    case let date as Date: return date.timeIntervalSince1970.bitPattern.bytes
    case let data as Data: return Array(data)
    case let text as String: return Array(text.utf8)
    default:
      let encoder = BufferEncoder(codingPath: codingPath)
      try value.encode(to: encoder)
      return encoder.finished()
    }
  }
}

/// The buffer of one value being encoded: a container's parts so far, or a single value.
private final class RecordBuffer {
  enum Kind {
    case none
    case single
    case container
  }

  var kind = Kind.none
  var bytes: [UInt8] = []
  var count = 0

  /// Appends a part of a container: its bytes, with their length first.
  func appendPart(_ part: [UInt8]) {
    bytes.appendVarint(UInt64(part.count))
    bytes += part
  }

  /// Appends a keyed field: the name and the value, each with its length.
  func appendField(_ name: String, _ value: [UInt8]) {
    appendName(name)
    appendPart(value)
  }

  /// Appends a keyed field's name with its length, and counts the field.
  func appendName(_ name: String) {
    let utf8 = name.utf8
    bytes.appendVarint(UInt64(utf8.count))
    bytes += utf8
    count += 1
  }
}

/// The `Encoder` behind ``RecordEncoder``: one buffer per value, containers nested by value.
private final class BufferEncoder: Encoder {
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  let buffer = RecordBuffer()
  /// Nested containers still being written, appended to the buffer when the value is done.
  var pending: [(name: String?, encoder: BufferEncoder)] = []

  init(codingPath: [any CodingKey]) {
    self.codingPath = codingPath
  }

  /// The value's bytes: a container's count and parts, or the single value.
  func finished() -> [UInt8] {
    flushNested()
    switch buffer.kind {
    case .single: return buffer.bytes
    case .none, .container:
      var bytes: [UInt8] = []
      bytes.reserveCapacity(buffer.bytes.count + 2)
      bytes.appendVarint(UInt64(buffer.count))
      bytes += buffer.bytes
      return bytes
    }
  }

  /// Appends nested containers, in the order they were asked for.
  func flushNested() {
    let nested = pending
    pending = []
    for (name, encoder) in nested {
      let part = encoder.finished()
      if let name {
        buffer.appendField(name, part)
      } else {
        buffer.appendPart(part)
        buffer.count += 1
      }
    }
  }

  func nested(named name: String?, codingPath: [any CodingKey]) -> BufferEncoder {
    flushNested()
    let encoder = BufferEncoder(codingPath: codingPath)
    pending.append((name, encoder))
    return encoder
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    buffer.kind = .container
    return KeyedEncodingContainer(KeyedBufferContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    buffer.kind = .container
    return UnkeyedBufferContainer(encoder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleBufferContainer(encoder: self)
  }
}

private struct KeyedBufferContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: BufferEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  private func add(_ bytes: [UInt8], for key: Key) {
    encoder.flushNested()
    encoder.buffer.appendField(key.stringValue, bytes)
  }

  /// Starts the field `key`; the caller appends its value with its length.
  private func start(_ key: Key) -> RecordBuffer {
    encoder.flushNested()
    encoder.buffer.appendName(key.stringValue)
    return encoder.buffer
  }

  mutating func encodeNil(forKey key: Key) throws {
    // A missing field reads back as nil.
  }

  mutating func encode(_ value: Bool, forKey key: Key) throws { add([value ? 1 : 0], for: key) }
  mutating func encode(_ value: String, forKey key: Key) throws {
    start(key).bytes.appendField(value)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    start(key).bytes.appendField(Int64(value))
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    start(key).bytes.appendField(eightBytes: value.bitPattern)
  }

  mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
    switch value {
    case let uuid as UUID: start(key).bytes.appendField(uuid)
    case let date as Date:
      start(key).bytes.appendField(eightBytes: date.timeIntervalSince1970.bitPattern)
    case let text as String: start(key).bytes.appendField(text)
    default: add(try RecordWriter.bytes(of: value, codingPath: codingPath + [key]), for: key)
    }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    encoder.nested(named: key.stringValue, codingPath: codingPath + [key])
      .container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder.nested(named: key.stringValue, codingPath: codingPath + [key]).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.nested(named: "super", codingPath: codingPath)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    encoder.nested(named: key.stringValue, codingPath: codingPath + [key])
  }
}

private struct UnkeyedBufferContainer: UnkeyedEncodingContainer {
  let encoder: BufferEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }
  var count: Int { encoder.buffer.count + encoder.pending.count }

  private func add(_ bytes: [UInt8]) {
    encoder.flushNested()
    encoder.buffer.appendPart(bytes)
    encoder.buffer.count += 1
  }

  mutating func encodeNil() throws {
    throw EncodingError.invalidValue(
      Optional<Int>.none as Any,
      .init(codingPath: codingPath, debugDescription: "records keep no nil in a list"))
  }

  mutating func encode(_ value: String) throws { add(Array(value.utf8)) }
  mutating func encode(_ value: Int) throws { add(Int64(value).zigzagBytes) }

  mutating func encode<Value: Encodable>(_ value: Value) throws {
    if let uuid = value as? UUID {
      encoder.flushNested()
      encoder.buffer.bytes.appendField(uuid)
      encoder.buffer.count += 1
      return
    }
    add(try RecordWriter.bytes(of: value, codingPath: codingPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    encoder.nested(named: nil, codingPath: codingPath).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    encoder.nested(named: nil, codingPath: codingPath).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.nested(named: nil, codingPath: codingPath)
  }
}

private struct SingleBufferContainer: SingleValueEncodingContainer {
  let encoder: BufferEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  private func set(_ bytes: [UInt8]) {
    encoder.buffer.kind = .single
    encoder.buffer.bytes = bytes
  }

  mutating func encodeNil() throws {
    throw EncodingError.invalidValue(
      Optional<Int>.none as Any,
      .init(codingPath: codingPath, debugDescription: "records keep nil only as a missing field"))
  }

  mutating func encode(_ value: Bool) throws { set([value ? 1 : 0]) }
  mutating func encode(_ value: String) throws { set(Array(value.utf8)) }
  mutating func encode(_ value: Double) throws { set(value.bitPattern.bytes) }
  mutating func encode(_ value: Float) throws { set(Double(value).bitPattern.bytes) }
  mutating func encode(_ value: Int) throws { set(Int64(value).zigzagBytes) }
  mutating func encode(_ value: Int8) throws { set(Int64(value).zigzagBytes) }
  mutating func encode(_ value: Int16) throws { set(Int64(value).zigzagBytes) }
  mutating func encode(_ value: Int32) throws { set(Int64(value).zigzagBytes) }
  mutating func encode(_ value: Int64) throws { set(value.zigzagBytes) }
  mutating func encode(_ value: UInt) throws { set(UInt64(value).varintBytes) }
  mutating func encode(_ value: UInt8) throws { set(UInt64(value).varintBytes) }
  mutating func encode(_ value: UInt16) throws { set(UInt64(value).varintBytes) }
  mutating func encode(_ value: UInt32) throws { set(UInt64(value).varintBytes) }
  mutating func encode(_ value: UInt64) throws { set(value.varintBytes) }

  mutating func encode<Value: Encodable>(_ value: Value) throws {
    set(try RecordWriter.bytes(of: value, codingPath: codingPath))
  }
}

extension [UInt8] {
  /// Appends a field's UTF-8 string value with its length.
  mutating func appendField(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      appendVarint(UInt64(utf8.count))
      self += utf8
    }
  }

  /// Appends a field's integer value as a zigzag varint, with its length.
  mutating func appendField(_ value: Int64) {
    let zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
    append(UInt8(zigzag.varintLength))
    appendVarint(zigzag)
  }

  /// Appends a field's eight-byte value (a double's or a date's bits) with its length.
  mutating func appendField(eightBytes value: UInt64) {
    append(8)
    Swift.withUnsafeBytes(of: value.littleEndian) { self += $0 }
  }

  /// Appends a field's UUID, its sixteen bytes, with their length.
  mutating func appendField(_ value: UUID) {
    append(16)
    Swift.withUnsafeBytes(of: value.uuid) { self += $0 }
  }

  /// Appends `value` as a little-endian base-128 varint.
  mutating func appendVarint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    append(UInt8(rest))
  }
}

extension UInt64 {
  /// How many bytes the value takes as a varint.
  var varintLength: Int {
    var length = 1
    var rest = self >> 7
    while rest != 0 {
      length += 1
      rest >>= 7
    }
    return length
  }

  /// The value as a varint.
  var varintBytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendVarint(self)
    return bytes
  }

  /// The value's eight bytes, little-endian.
  var bytes: [UInt8] {
    withUnsafeBytes(of: littleEndian) { Array($0) }
  }
}

extension Int64 {
  /// The value zigzag-mapped to unsigned, as a varint: small magnitudes take few bytes.
  var zigzagBytes: [UInt8] {
    UInt64(bitPattern: (self << 1) ^ (self >> 63)).varintBytes
  }
}

extension UUID {
  /// The sixteen bytes of the UUID.
  var bytes: [UInt8] {
    withUnsafeBytes(of: uuid) { Array($0) }
  }
}
