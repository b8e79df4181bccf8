import Foundation

/// Reads values that ``RecordEncoder`` wrote; bytes that do not hold such a value are a
/// `DecodingError` naming the path, never a crash.
struct RecordDecoder {
  /// The value of type `Value` in `bytes`.
  func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
    try bytes.withUnsafeBufferPointer { try decode(type, from: $0) }
  }

  /// The value of type `Value` in `buffer`, read in place.
  func decode<Value: Decodable>(_ type: Value.Type, from buffer: UnsafeBufferPointer<UInt8>)
    throws -> Value
  {
    try RecordReader.decode(type, from: Slice(base: buffer, bounds: buffer.indices), codingPath: [])
  }

  /// A function that reads values of `type` as ``decode(_:from:)-(_,UnsafeBufferPointer<UInt8>)``
  /// does: field by field if the type is ``RecordReadable``, else through `Codable`, with the
  /// question answered once, not for each value.
  func decoder<Value: Decodable>(for type: Value.Type) -> (UnsafeBufferPointer<UInt8>) throws
    -> Value
  {
    func fieldByField<Readable: RecordReadable>(_: Readable.Type) -> (
      UnsafeBufferPointer<UInt8>
    ) throws -> Value {
      guard Value.self == Readable.self else { return { try decode(type, from: $0) } }
      // The two are one type: a value of one is a value of the other, without a cast per value.
      return { buffer in
        let value = try RecordFieldReader.read(Readable.self, from: buffer)
        return withUnsafePointer(to: value) { pointer in
          pointer.withMemoryRebound(to: Value.self, capacity: 1) { $0.pointee }
        }
      }
    }
    guard let readable = type as? any RecordReadable.Type else {
      return { try decode(type, from: $0) }
    }
    return fieldByField(readable)
  }
}

/// A run of record bytes being read.
typealias RecordBytes = Slice<UnsafeBufferPointer<UInt8>>

extension Slice where Base == UnsafeBufferPointer<UInt8> {
  /// The first byte of the buffer these bytes are part of, for loops to read bytes through.
  ///
  /// A debug build calls a generic function for each byte read through the slice, and none for
  /// a byte read through a pointer. `nil` for an empty buffer, whose every index is past its end.
  var start: UnsafePointer<UInt8>? { base.baseAddress }
}

enum RecordReader {
  /// Whether the bytes at `start` spell `name`, whose length the caller compared.
  ///
  /// Both record readers find fields by name this way: through pointers, since a debug build
  /// runs a generic comparison of two sequences as a call per byte.
  static func spells(_ name: UnsafeBufferPointer<UInt8>, at start: UnsafePointer<UInt8>) -> Bool {
    guard let spelled = name.baseAddress else { return name.isEmpty }
    return memcmp(start, spelled, name.count) == 0
  }

  /// Decodes `type` from `bytes`, with the compact forms of UUIDs, dates and data.
  static func decode<Value: Decodable>(
    _ type: Value.Type, from bytes: RecordBytes, codingPath: [any CodingKey]
  ) throws -> Value {
    if type == UUID.self {
      guard bytes.count == 16 else { throw corrupt(codingPath, "a UUID needs 16 bytes") }
      let uuid = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes))
        .loadUnaligned(as: uuid_t.self)
      return try cast(UUID(uuid: uuid), codingPath)
    }
    if type == Date.self {
      return try cast(Date(timeIntervalSince1970: try double(bytes, codingPath)), codingPath)
    }
    if type == Data.self { return try cast(Data(bytes), codingPath) }
    return try Value(from: SliceDecoder(bytes: bytes, codingPath: codingPath))
  }

  /// The UUID in `bytes`, if they are sixteen.
  static func uuid(_ bytes: RecordBytes) -> UUID? {
    guard bytes.count == 16 else { return nil }
    return UUID(
      uuid: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes)).loadUnaligned(
        as: uuid_t.self))
  }

  /// `value` as `Value`, which the caller checked it is.
  private static func cast<Value>(_ value: Any, _ codingPath: [any CodingKey]) throws -> Value {
    guard let typed = value as? Value else {
      throw corrupt(codingPath, "\(type(of: value)) is not \(Value.self)")
    }
    return typed
  }

  static func corrupt(_ codingPath: @autoclosure () -> [any CodingKey], _ reason: String)
    -> DecodingError
  {
    .dataCorrupted(
      .init(codingPath: codingPath(), debugDescription: "the record is damaged: \(reason)"))
  }

  /// A varint at `index` of `bytes`, and the index after it.
  static func varint(
    _ bytes: RecordBytes, at index: Int, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> (UInt64, Int) {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    var position = index
    guard let start = bytes.start else {
      throw corrupt(codingPath(), "a length or number runs past its end")
    }
    while position < bytes.endIndex {
      let byte = start[position]
      position += 1
      guard shift < 64 else { break }
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return (value, position) }
      shift += 7
    }
    throw corrupt(codingPath(), "a length or number runs past its end")
  }

  /// The fields of the keyed record in `bytes`, after its count, checked to fill it exactly.
  static func fields(of bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey])
    throws -> RecordBytes
  {
    var (count, index) = try varint(bytes, at: bytes.startIndex, codingPath())
    let start = index
    while count > 0 {
      let (_, afterName) = try run(bytes, at: index, codingPath())
      let (_, afterValue) = try run(bytes, at: afterName, codingPath())
      index = afterValue
      count -= 1
    }
    guard index == bytes.endIndex else {
      throw corrupt(codingPath(), "bytes follow the last field")
    }
    return bytes[start..<index]
  }

  /// The elements of the list in `bytes`, checked to fill it exactly.
  static func elements(of bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey])
    throws -> [RecordBytes]
  {
    var (count, index) = try varint(bytes, at: bytes.startIndex, codingPath())
    guard count <= UInt64(bytes.endIndex - index) else {
      throw corrupt(codingPath(), "a list counts more elements than it has bytes")
    }
    var elements: [RecordBytes] = []
    elements.reserveCapacity(Int(count))
    while count > 0 {
      let (element, next) = try run(bytes, at: index, codingPath())
      elements.append(element)
      index = next
      count -= 1
    }
    guard index == bytes.endIndex else {
      throw corrupt(codingPath(), "bytes follow the last element")
    }
    return elements
  }

  /// The length-prefixed run at `index`, and the index after it.
  static func run(
    _ bytes: RecordBytes, at index: Int, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> (RecordBytes, Int) {
    let (length, start) = try varint(bytes, at: index, codingPath())
    guard length <= UInt64(bytes.endIndex - start) else {
      throw corrupt(codingPath(), "a part is longer than the record")
    }
    let end = start + Int(length)
    return (bytes[start..<end], end)
  }

  static func integer(
    _ bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> Int64 {
    let (raw, end) = try varint(bytes, at: bytes.startIndex, codingPath())
    guard end == bytes.endIndex else { throw corrupt(codingPath(), "a number has bytes after it") }
    return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
  }

  static func unsigned(
    _ bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> UInt64 {
    let (raw, end) = try varint(bytes, at: bytes.startIndex, codingPath())
    guard end == bytes.endIndex else { throw corrupt(codingPath(), "a number has bytes after it") }
    return raw
  }

  static func double(
    _ bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> Double {
    guard bytes.count == 8, let start = bytes.start else {
      throw corrupt(codingPath(), "a number needs 8 bytes")
    }
    let bits = UnsafeRawPointer(start + bytes.startIndex).loadUnaligned(as: UInt64.self)
    return Double(bitPattern: UInt64(littleEndian: bits))
  }

  static func bool(
    _ bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> Bool {
    guard bytes.count == 1, bytes.first.map({ $0 <= 1 }) == true else {
      throw corrupt(codingPath(), "a Boolean needs one byte, 0 or 1")
    }
    return bytes.first == 1
  }

  static func string(
    _ bytes: RecordBytes, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw corrupt(codingPath(), "a string is not UTF-8")
    }
    return text
  }

  /// A fixed-width integer, or an error if the stored value does not fit.
  static func fitting<Target: FixedWidthInteger>(
    _ value: some BinaryInteger, _ codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> Target {
    guard let fitted = Target(exactly: value) else {
      throw corrupt(codingPath(), "\(value) does not fit \(Target.self)")
    }
    return fitted
  }
}

/// The `Decoder` over one value's bytes.
private struct SliceDecoder: Decoder {
  let bytes: RecordBytes
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(try KeyedSliceContainer<Key>(bytes: bytes, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try UnkeyedSliceContainer(bytes: bytes, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleSliceContainer(bytes: bytes, codingPath: codingPath)
  }
}

private struct KeyedSliceContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let codingPath: [any CodingKey]
  /// The fields, after the count; checked whole when the container is made, read by name
  /// without copying.
  private let fields: RecordBytes

  init(bytes: RecordBytes, codingPath: [any CodingKey]) throws {
    self.codingPath = codingPath
    self.fields = try RecordReader.fields(of: bytes, codingPath)
  }

  /// Each field's name and value, in order; the bytes were checked when the container was made.
  private func forEachField(_ body: (RecordBytes, RecordBytes) -> Bool) {
    var index = fields.startIndex
    while index < fields.endIndex {
      guard let (name, afterName) = try? RecordReader.run(fields, at: index, codingPath),
        let (value, afterValue) = try? RecordReader.run(fields, at: afterName, codingPath)
      else { return }
      if !body(name, value) { return }
      index = afterValue
    }
  }

  var allKeys: [Key] {
    var keys: [Key] = []
    forEachField { name, _ in
      if let key = String(validating: name, as: UTF8.self).flatMap(Key.init(stringValue:)) {
        keys.append(key)
      }
      return true
    }
    return keys
  }

  private func value(for key: Key) -> RecordBytes? {
    var wanted = key.stringValue
    return wanted.withUTF8 { wanted in
      var found: RecordBytes?
      forEachField { name, value in
        if name.count == wanted.count,
          name.start.map({ RecordReader.spells(wanted, at: $0 + name.startIndex) }) ?? true
        {
          found = value
          return false
        }
        return true
      }
      return found
    }
  }

  private func required(_ key: Key) throws -> RecordBytes {
    guard let value = value(for: key) else {
      throw DecodingError.keyNotFound(
        key,
        .init(codingPath: codingPath, debugDescription: "the record has no '\(key.stringValue)'"))
    }
    return value
  }

  func contains(_ key: Key) -> Bool { value(for: key) != nil }

  func decodeNil(forKey key: Key) throws -> Bool { value(for: key) == nil }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try RecordReader.bool(try required(key), codingPath + [key])
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try RecordReader.string(try required(key), codingPath + [key])
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try RecordReader.fitting(
      try RecordReader.integer(try required(key), codingPath + [key]), codingPath + [key])
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try RecordReader.double(try required(key), codingPath + [key])
  }

  func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
    let bytes = try required(key)
    // UUIDs, dates and strings are read without building a coding path unless they fail.
    if type == UUID.self, let uuid = RecordReader.uuid(bytes) as? Value { return uuid }
    if type == Date.self, bytes.count == 8 {
      let date = Date(timeIntervalSince1970: try RecordReader.double(bytes, codingPath + [key]))
      if let date = date as? Value { return date }
    }
    return try RecordReader.decode(type, from: bytes, codingPath: codingPath + [key])
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    KeyedDecodingContainer(
      try KeyedSliceContainer<NestedKey>(bytes: try required(key), codingPath: codingPath + [key]))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try UnkeyedSliceContainer(bytes: try required(key), codingPath: codingPath + [key])
  }

  func superDecoder() throws -> any Decoder {
    throw RecordReader.corrupt(codingPath, "records keep no superclass values")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    SliceDecoder(bytes: try required(key), codingPath: codingPath + [key])
  }
}

/// An element's position, as a coding key.
private struct IndexKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "\(intValue ?? 0)" }
  init(_ index: Int) { intValue = index }
  init?(stringValue: String) { nil }
  init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedSliceContainer: UnkeyedDecodingContainer {
  let codingPath: [any CodingKey]
  private let elements: [RecordBytes]
  private(set) var currentIndex = 0

  init(bytes: RecordBytes, codingPath: [any CodingKey]) throws {
    self.codingPath = codingPath
    self.elements = try RecordReader.elements(of: bytes, codingPath)
  }

  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private mutating func next() throws -> (RecordBytes, [any CodingKey]) {
    let path = codingPath + [IndexKey(currentIndex)]
    guard !isAtEnd else { throw RecordReader.corrupt(path, "the list ends early") }
    defer { currentIndex += 1 }
    return (elements[currentIndex], path)
  }

  mutating func decodeNil() throws -> Bool { false }

  mutating func decode(_ type: String.Type) throws -> String {
    let (bytes, path) = try next()
    return try RecordReader.string(bytes, path)
  }

  mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
    let (bytes, path) = try next()
    return try RecordReader.decode(type, from: bytes, codingPath: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (bytes, path) = try next()
    return KeyedDecodingContainer(
      try KeyedSliceContainer<NestedKey>(bytes: bytes, codingPath: path))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (bytes, path) = try next()
    return try UnkeyedSliceContainer(bytes: bytes, codingPath: path)
  }

  mutating func superDecoder() throws -> any Decoder {
    let (bytes, path) = try next()
    return SliceDecoder(bytes: bytes, codingPath: path)
  }
}

private struct SingleSliceContainer: SingleValueDecodingContainer {
  let bytes: RecordBytes
  let codingPath: [any CodingKey]

  func decodeNil() -> Bool { false }
  func decode(_ type: Bool.Type) throws -> Bool { try RecordReader.bool(bytes, codingPath) }
  func decode(_ type: String.Type) throws -> String { try RecordReader.string(bytes, codingPath) }
  func decode(_ type: Double.Type) throws -> Double { try RecordReader.double(bytes, codingPath) }
  func decode(_ type: Float.Type) throws -> Float {
    Float(try RecordReader.double(bytes, codingPath))
  }
  func decode(_ type: Int.Type) throws -> Int { try signed(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try signed(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try signed(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try signed(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try RecordReader.integer(bytes, codingPath) }
  func decode(_ type: UInt.Type) throws -> UInt { try unsigned(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try unsigned(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try unsigned(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try unsigned(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try RecordReader.unsigned(bytes, codingPath) }

  func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
    try RecordReader.decode(type, from: bytes, codingPath: codingPath)
  }

  private func signed<Target: FixedWidthInteger>(_ type: Target.Type) throws -> Target {
    try RecordReader.fitting(try RecordReader.integer(bytes, codingPath), codingPath)
  }

  private func unsigned<Target: FixedWidthInteger>(_ type: Target.Type) throws -> Target {
    try RecordReader.fitting(try RecordReader.unsigned(bytes, codingPath), codingPath)
  }
}
