import Foundation
import Models
import Seams
import TestSupport
import Testing

@testable import SQLiteStore

@Suite("RecordReadable", .tags(.models), .courier(timeBudget: .seconds(10)))
struct RecordReadableTests {
  /// How one run of bytes reads, field by field and through `Codable`.
  struct Reading: Sendable, CustomTestStringConvertible {
    let label: String
    /// Whether both ways read the bytes to the same value, or both refused them.
    let agrees: @Sendable ([UInt8]) -> Bool
    /// Whether field by field reads the bytes back to the value they were written from.
    let readsBack: @Sendable ([UInt8]) -> Bool
    let bytes: @Sendable () throws -> [UInt8]
    /// Values written inside the record that are readings of their own: the byte tests change
    /// only the first and last of their bytes here, where the record's lengths meet them.
    let nested: @Sendable () throws -> [[UInt8]]

    init<Value: RecordReadable & Codable & Equatable & Sendable>(
      _ label: String, _ value: Value, nested: [Conversation] = []
    ) {
      self.label = label
      self.nested = { try nested.map { try RecordWriter.bytes(of: $0, codingPath: []) } }
      let fieldByField: @Sendable ([UInt8]) -> Result<Value, any Error> = { bytes in
        Result {
          try bytes.withUnsafeBufferPointer {
            try RecordFieldReader.read(Value.self, from: $0)
          }
        }
      }
      let codable: @Sendable ([UInt8]) -> Result<Value, any Error> = { bytes in
        Result { try RecordDecoder().decode(Value.self, from: bytes) }
      }
      agrees = { bytes in
        switch (fieldByField(bytes), codable(bytes)) {
        case (.success(let fast), .success(let slow)): fast == slow
        case (.failure(let fast), .failure(let slow)):
          fast is DecodingError && slow is DecodingError
        default: false
        }
      }
      readsBack = { bytes in (try? fieldByField(bytes).get()) == value }
      bytes = { try RecordWriter.bytes(of: value, codingPath: []) }
    }

    var testDescription: String { label }

    /// The positions of `bytes` the byte tests change: all, but for the inner bytes of each
    /// nested value.
    func positions(in bytes: [UInt8]) throws -> [Int] {
      var inner = IndexSet()
      for value in try nested() where value.count > 2 {
        var start = bytes.startIndex
        while let range = bytes[start...].firstRange(of: value) {
          inner.insert(integersIn: (range.lowerBound + 1)..<(range.upperBound - 1))
          start = range.upperBound
        }
      }
      return bytes.indices.filter { !inner.contains($0) }
    }
  }

  static let readings: [Reading] = {
    var renamed = PendingChange<User>()
    renamed.keys = [.name, .email]
    renamed.original = RecordWritableTests.user
    renamed.editBase = RecordWritableTests.user
    return [
      Reading("a user with every property set", RecordWritableTests.user),
      Reading("a user with none of its optionals", User(id: UUID(UInt64(9)), name: "")),
      Reading("a group with every property set", RecordWritableTests.group),
      Reading("a message with every property set", RecordWritableTests.message),
      Reading(
        "a message not yet sent",
        Message(
          nonce: UUID(UInt64(7)), conversationID: UUID(UInt64(1)), senderID: UUID(UInt64(2)),
          text: "", localTime: RecordWritableTests.time)),
      Reading("a connection with every property set", RecordWritableTests.connection),
      Reading(
        "a change-log record with every part", RecordWritableTests.fullRecord,
        nested: RecordWritableTests.fullRecordGroups),
      Reading("a change-log record of two keys", renamed),
      Reading("an empty change-log record", PendingChange<Message>()),
    ]
  }()

  @Test("It reads back the value the bytes were written from", arguments: readings)
  func readsBack(_ reading: Reading) throws {
    // given
    let bytes = try reading.bytes()

    // when
    let readBack = reading.readsBack(bytes)

    // then
    #expect(readBack)
  }

  @Test(
    "A record cut short anywhere is refused with a decoding error, as through Codable",
    arguments: readings)
  func truncated(_ reading: Reading) throws {
    // given
    let bytes = try reading.bytes()

    // when
    let disagreeing = (0..<bytes.count).filter { !reading.agrees(Array(bytes.prefix($0))) }

    // then
    #expect(disagreeing == [])
  }

  @Test(
    "A record with any one byte changed reads as through Codable, or is refused as through it",
    arguments: readings)
  func changedByte(_ reading: Reading) throws {
    // given: each byte one more, one less, and at the edges of a varint's byte (inside a
    // nested value that is a reading of its own, only its first and last byte)
    let bytes = try reading.bytes()
    let changed = try reading.positions(in: bytes).flatMap { index in
      [bytes[index] &+ 1, bytes[index] &- 1, 0, 0x7F, 0x80, 0xFF].map { byte in
        var copy = bytes
        copy[index] = byte
        return copy
      }
    }

    // when
    let disagreeing = changed.filter { !reading.agrees($0) }

    // then
    #expect(disagreeing.isEmpty, "\(disagreeing.count) of \(changed.count) read otherwise")
  }

  @Test("A field written in another order or unknown to the reader changes nothing")
  func fieldOrder() throws {
    // given: a user's fields in reverse order, with a field from a later version among them
    struct Reordered: Encodable {
      let email: String, accentID: Int, later: String, name: String, isSelf: Bool, id: UUID
    }
    let user = User(id: UUID(UInt64(4)), name: "Ann", accentID: 2, email: "a@b.c")
    let bytes = try RecordWriter.bytes(
      of: Reordered(
        email: "a@b.c", accentID: 2, later: "x", name: "Ann", isSelf: false, id: user.id),
      codingPath: [])

    // when
    let read = try bytes.withUnsafeBufferPointer { try RecordFieldReader.read(User.self, from: $0) }

    // then
    #expect(read == user)
  }
}
