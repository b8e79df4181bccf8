import Foundation
import TestSupport
import Testing

@testable import SQLiteStore

/// Every primitive the coding protocols offer, in keyed, unkeyed and single-value containers,
/// with nested containers: the record format must carry any `Codable` value, not only today's
/// models.
private struct EveryPrimitive: Codable, Equatable {
  var flag = true
  var text = "grüße"
  var double = -2.5
  var float: Float = 0.25
  var int = Int.min
  var int8 = Int8.min
  var int16 = Int16.max
  var int32 = Int32.min
  var int64 = Int64.max
  var uint = UInt.max
  var uint8 = UInt8.max
  var uint16 = UInt16.max
  var uint32 = UInt32.max
  var uint64 = UInt64.max
  var missing: Int? = nil
  var present: String? = "here"
  var list: [Int16] = [-1, 0, 1]
  var nested: [[String: UInt8]] = [["a": 1], [:]]
  var raw = Data([0, 255, 7])
  var instant = Date(timeIntervalSince1970: 1_234.5)
  var single = Single(value: 42)
  var tuple = Tuple()
}

/// A value that encodes itself as one single value.
private struct Single: Codable, Equatable {
  var value: UInt32

  init(value: UInt32) { self.value = value }

  init(from decoder: any Decoder) throws {
    value = try decoder.singleValueContainer().decode(UInt32.self)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

/// A value that encodes every primitive into one unkeyed container, and a nested keyed one.
private struct Tuple: Codable, Equatable {
  var flag = false
  var float: Float = -1.5
  var double = 3.0
  var int8: Int8 = -8
  var int16: Int16 = -16
  var int32: Int32 = -32
  var int64: Int64 = -64
  var int = -1
  var uint8: UInt8 = 8
  var uint16: UInt16 = 16
  var uint32: UInt32 = 32
  var uint64: UInt64 = 64
  var uint: UInt = 1
  var text = "t"
  var inner = ["k": true]

  init() {}

  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    flag = try container.decode(Bool.self)
    float = try container.decode(Float.self)
    double = try container.decode(Double.self)
    int8 = try container.decode(Int8.self)
    int16 = try container.decode(Int16.self)
    int32 = try container.decode(Int32.self)
    int64 = try container.decode(Int64.self)
    int = try container.decode(Int.self)
    uint8 = try container.decode(UInt8.self)
    uint16 = try container.decode(UInt16.self)
    uint32 = try container.decode(UInt32.self)
    uint64 = try container.decode(UInt64.self)
    uint = try container.decode(UInt.self)
    text = try container.decode(String.self)
    var nested = try container.nestedUnkeyedContainer()
    let key = try nested.decode(String.self)
    let keyed = try container.nestedContainer(keyedBy: AnyKey.self)
    inner = [key: try keyed.decode(Bool.self, forKey: AnyKey(key))]
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(flag)
    try container.encode(float)
    try container.encode(double)
    try container.encode(int8)
    try container.encode(int16)
    try container.encode(int32)
    try container.encode(int64)
    try container.encode(int)
    try container.encode(uint8)
    try container.encode(uint16)
    try container.encode(uint32)
    try container.encode(uint64)
    try container.encode(uint)
    try container.encode(text)
    let (key, value) = inner.first ?? ("", false)
    var nested = container.nestedUnkeyedContainer()
    try nested.encode(key)
    var keyed = container.nestedContainer(keyedBy: AnyKey.self)
    try keyed.encode(value, forKey: AnyKey(key))
  }
}

/// A coding key made from any string.
private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ string: String) { stringValue = string }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

@Suite(
  "RecordEncoder and RecordDecoder with any Codable value", .tags(.models), .timeBudget(.seconds(5))
)
struct RecordCoderPrimitivesTests {
  @Test("Every primitive, at its extremes, in every kind of container reads back equal")
  func everyPrimitive() throws {
    // given
    let value = EveryPrimitive()

    // when
    let bytes = try RecordEncoder().encode(value)

    // then
    #expect(try RecordDecoder().decode(EveryPrimitive.self, from: bytes) == value)
  }

  @Test("An integer too wide for the type it is read as is a decoding error, not a wrapped value")
  func tooWide() throws {
    // given
    let bytes = try RecordEncoder().encode(Single(value: 300))

    // when
    let error = #expect(throws: DecodingError.self) {
      try RecordDecoder().decode(UInt8.self, from: bytes)
    }

    // then
    #expect(error != nil)
  }
}
