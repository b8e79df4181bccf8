import ConnectionParsing
import Foundation
import JSON
import ParsingCore
import Seams
import TestSupport
import Testing

@Suite("ConnectionPayload", .tags(.parsing), .timeBudget(.seconds(5)))
struct ConnectionPayloadTests {
  static let valid: JSONValue = [
    "from": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11",
    "to": "0c7f5b86-1b77-4d3e-8f4f-6f0b2a0b6c22",
    "status": "pending",
    "conversation": "f0e1d2c3-b4a5-4697-8877-665544332211",
    "last_update": "2026-11-21T10:00:00.000Z",
    "message": "Hi",
  ]

  static func payload(_ changes: [String: JSONValue?]) -> Data {
    var members = valid.objectValue ?? [:]
    for (key, value) in changes { members[key] = value }
    return Data(JSONValue.object(members).serialized())
  }

  @Test("It does not crash with the article's invalid fields, and names every one of them")
  func articlePayloadIsRejectedWithEveryField() {
    // given
    let payload = Data(#"{"status": "foo", "from": "eeeee", "to": 44, "last_update": []}"#.utf8)

    // when
    let result = Result { () throws(PayloadError) in try ConnectionPayload.parse(payload) }

    // then
    guard case .failure(let error) = result else {
      Issue.record("the article's payload was accepted")
      return
    }
    #expect(
      error.fieldErrors.map { "\($0.keyPath) \($0.problem)" }.sorted() == [
        "conversation missing", "from invalidValue", "last_update wrongType", "status invalidValue",
        "to wrongType",
      ])
    #expect(error.description.contains(#"'to': wrong type, expected UUID string, found 44"#))
  }

  @Test("It parses every status the backend sends", arguments: ConnectionStatus.allCases)
  func everyStatusParses(status: ConnectionStatus) throws {
    // given
    let data = Self.payload(["status": .string(status.rawValue)])

    // when
    let connection = try ConnectionPayload.parse(data)

    // then
    #expect(connection.status == status)
  }

  /// One way to spoil one field, with the problem it must be reported as.
  struct Spoiled: Sendable, CustomTestStringConvertible {
    let key: String
    let value: JSONValue?
    let problem: FieldError.Problem

    var testDescription: String {
      "\(key) \(value.map { "= \($0.jsonText)" } ?? "missing") → \(problem.rawValue)"
    }
  }

  static let spoiled: [Spoiled] =
    ["from", "to", "conversation"].flatMap { key in
      [
        Spoiled(key: key, value: nil, problem: .missing),
        Spoiled(key: key, value: .null, problem: .null),
        Spoiled(key: key, value: 44, problem: .wrongType),
        Spoiled(key: key, value: "eeeee", problem: .invalidValue),
      ]
    } + [
      Spoiled(key: "status", value: nil, problem: .missing),
      Spoiled(key: "status", value: .null, problem: .null),
      Spoiled(key: "status", value: true, problem: .wrongType),
      Spoiled(key: "status", value: "foo", problem: .invalidValue),
      Spoiled(key: "status", value: "Accepted", problem: .invalidValue),
      Spoiled(key: "last_update", value: nil, problem: .missing),
      Spoiled(key: "last_update", value: .null, problem: .null),
      Spoiled(key: "last_update", value: [], problem: .wrongType),
      Spoiled(key: "last_update", value: 1_700_000_000, problem: .wrongType),
      Spoiled(key: "last_update", value: "yesterday", problem: .invalidValue),
      Spoiled(key: "message", value: 7, problem: .wrongType),
      Spoiled(key: "message", value: ["text": "hi"], problem: .wrongType),
    ]

  @Test("It reports exactly the spoiled field with its problem", arguments: spoiled)
  func spoiledFieldIsReported(row: Spoiled) {
    // given
    let data = Self.payload([row.key: row.value])

    // when
    let result = Result { () throws(PayloadError) in try ConnectionPayload.parse(data) }

    // then
    guard case .failure(let error) = result else {
      Issue.record("\(row.testDescription) was accepted")
      return
    }
    #expect(error.fieldErrors.map(\.keyPath) == [row.key])
    #expect(error.fieldErrors.first?.problem == row.problem)
  }

  @Test(
    "It accepts a message that is absent, null or a string",
    arguments: zip(
      [nil, JSONValue.null, "Hello"] as [JSONValue?], [nil, nil, "Hello"] as [String?]))
  func messageIsOptional(value: JSONValue?, expected: String?) throws {
    // given
    var members = Self.valid.objectValue ?? [:]
    members["message"] = value
    let data = Data(JSONValue.object(members).serialized())

    // when
    let connection = try ConnectionPayload.parse(data)

    // then
    #expect(connection.message == expected)
  }

  @Test("It rejects a connection from a user to the same user")
  func selfConnectionIsRejected() {
    // given
    let data = Self.payload(["to": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11"])

    // when
    let result = Result { () throws(PayloadError) in try ConnectionPayload.parse(data) }

    // then
    #expect(throws: PayloadError.self) { try result.get() }
    #expect(
      result.failureFields == [
        FieldError(
          keyPath: "to", problem: .invalidValue, expected: "a user other than 'from'",
          found: #""6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11""#)
      ])
  }

  @Test("It ignores fields it does not know, for forward compatibility")
  func unknownFieldsAreIgnored() throws {
    // given
    let data = Self.payload(["team": "x", "legalhold": ["status": 1]])

    // when
    let connection = try ConnectionPayload.parse(data)

    // then
    #expect(connection.status == .pending)
  }

  @Test(
    "It reads ISO 8601 dates with and without fractions (to the millisecond), with Z and numeric offsets",
    arguments: zip(
      [
        "2026-11-21T10:00:00Z", "2026-11-21T10:00:00.000Z", "2026-11-21T10:00:00.5Z",
        "2026-11-21T12:00:00+02:00", "2026-11-21T05:30:00-0430", "2026-11-21T10:00:00.123456789Z",
      ],
      [
        1_795_255_200, 1_795_255_200, 1_795_255_200.5, 1_795_255_200, 1_795_255_200,
        1_795_255_200.123,  // read to the nearest millisecond
      ]
        as [TimeInterval]))
  func datesAreRead(text: String, expected: TimeInterval) throws {
    // given
    let data = Self.payload(["last_update": .string(text)])

    // when
    let connection = try ConnectionPayload.parse(data)

    // then
    #expect(abs(connection.lastUpdate.timeIntervalSince1970 - expected) < 0.000_001)
  }

  @Test(
    "It rejects timestamps that are not valid ISO 8601",
    arguments: [
      "2026-02-30T10:00:00Z", "2026-11-21 10:00:00Z", "2026-11-21T10:00:00", "2026-11-21T24:00:00Z",
      "2026-11-21T10:00:00.Z", "2026-11-21T10:00:00.1234567891Z", "2026-13-01T00:00:00Z",
      "2026-11-21T10:00:00+25:00", "",
    ])
  func invalidDatesAreRejected(text: String) {
    // given
    let data = Self.payload(["last_update": .string(text)])

    // when
    let result = Result { () throws(PayloadError) in try ConnectionPayload.parse(data) }

    // then
    #expect(result.failureFields.map(\.keyPath) == ["last_update"])
    #expect(result.failureFields.first?.problem == .invalidValue)
  }

  @Test("It encodes a parsed payload back to the same JSON")
  func roundTrip() throws {
    // given
    let original = Self.valid

    // when
    let encoded = try ConnectionPayload.parse(original).jsonValue

    // then
    expectEqualJSON(encoded, original, names: ("encoded", "original"))
  }

  @Test(
    "It round-trips generated payloads", .tags(.generated), arguments: 1...10 as ClosedRange<UInt64>
  )
  func generatedRoundTrip(seed: UInt64) throws {
    // given
    let uuids = UUIDSource.seeded(seed)
    var generator = SeededRandomNumberGenerator(seed: seed)
    let connection = ConnectionPayload(
      from: uuids.next(), to: uuids.next(),
      status: ConnectionStatus.allCases.randomElement(using: &generator) ?? .sent,
      conversation: uuids.next(),
      lastUpdate: Date(
        timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000_000, using: &generator))
          / 1_000),
      message: Bool.random(using: &generator) ? nil : "note \(seed) é😀\n\"quoted\"")
    let bytes = connection.encoded()

    // when
    let reparsed = try ConnectionPayload.parse(bytes)

    // then
    #expect(reparsed == connection)
    #expect(reparsed.encoded() == bytes)
  }
}

extension Result where Failure == PayloadError {
  /// The field errors of a failure, empty on success.
  var failureFields: [FieldError] {
    if case .failure(let error) = self { error.fieldErrors } else { [] }
  }
}
