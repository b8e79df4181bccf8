import Foundation
import JSON
import ParsingCore
import TestSupport
import Testing
import UserParsing

@Suite("UserPayload", .tags(.parsing), .timeBudget(.seconds(5)))
struct UserPayloadTests {
  static let valid: JSONValue = [
    "id": "1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d", "name": "Ada Lovelace", "handle": "ada",
    "accent_id": 3, "email": "ada@example.com",
  ]

  static func with(_ key: String, _ value: JSONValue?) -> JSONValue {
    var members = valid.objectValue ?? [:]
    members[key] = value
    return .object(members)
  }

  @Test("It parses a complete user and encodes it back to the same JSON")
  func roundTrip() throws {
    // when
    let user = try UserPayload.parse(Self.valid)

    // then
    #expect(user.name == "Ada Lovelace")
    #expect(user.accentID == 3)
    expectEqualJSON(user.jsonValue, Self.valid)
  }

  @Test(
    "It reports each bad field of a user",
    arguments: zip(
      [
        ("name", ""), ("name", nil), ("accent_id", "3"), ("accent_id", 2.5), ("id", "x"),
        ("email", "not-an-address"), ("handle", 7),
      ]
        as [(String, JSONValue?)],
      [
        FieldError.Problem.invalidValue, .missing, .wrongType, .wrongType, .invalidValue,
        .invalidValue, .wrongType,
      ]))
  func badFieldIsReported(field: (String, JSONValue?), problem: FieldError.Problem) {
    // when
    let result = Result { () throws(PayloadError) in
      try UserPayload.parse(Self.with(field.0, field.1))
    }

    // then
    guard case .failure(let error) = result else {
      Issue.record("\(field.0) = \(String(describing: field.1)) was accepted")
      return
    }
    #expect(error.fieldErrors.map(\.keyPath) == [field.0])
    #expect(error.fieldErrors.first?.problem == problem)
  }

  @Test("It accepts a user without handle or e-mail", arguments: ["handle", "email"])
  func optionalFieldsMayBeAbsent(key: String) throws {
    // when
    let user = try UserPayload.parse(Self.with(key, nil))

    // then
    #expect(key == "handle" ? user.handle == nil : user.email == nil)
  }
}

@Suite("UserUpdatePayload", .tags(.parsing), .timeBudget(.seconds(5)))
struct UserUpdatePayloadTests {
  @Test("It keeps only the fields that changed")
  func partialUpdate() throws {
    // given
    let value: JSONValue = ["id": "1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d", "accent_id": 5]

    // when
    let update = try UserUpdatePayload.parse(value)

    // then
    #expect(update.accentID == 5)
    #expect(update.name == nil)
    expectEqualJSON(update.jsonValue, value)
  }

  @Test("It rejects a changed name that is empty")
  func emptyNameIsRejected() {
    // when
    let result = Result { () throws(PayloadError) in
      try UserUpdatePayload.parse(["id": "1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d", "name": ""])
    }

    // then
    #expect(throws: PayloadError.self) { try result.get() }
  }
}
