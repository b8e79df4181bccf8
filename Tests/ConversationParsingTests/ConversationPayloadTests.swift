import ConversationParsing
import Foundation
import JSON
import ParsingCore
import TestSupport
import Testing

@Suite("ConversationPayload", .tags(.parsing), .timeBudget(.seconds(5)))
struct ConversationPayloadTests {
  static let valid: JSONValue = [
    "id": "f0e1d2c3-b4a5-4697-8877-665544332211", "type": 0, "name": "Launch team",
    "creator": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11",
    "members": [
      "self": ["id": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11"],
      "others": [
        ["id": "0c7f5b86-1b77-4d3e-8f4f-6f0b2a0b6c22"],
        ["id": "1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d"],
      ],
    ],
    "last_event_time": "2026-11-21T10:00:00.000Z",
  ]

  @Test("It parses a group and encodes it back to the same JSON")
  func roundTrip() throws {
    // when
    let conversation = try ConversationPayload.parse(Self.valid)

    // then
    #expect(conversation.type == .group)
    #expect(conversation.otherMembers.count == 2)
    expectEqualJSON(conversation.jsonValue, Self.valid)
  }

  @Test(
    "It reads each conversation type by its number",
    arguments: zip(
      [0, 1, 2, 3], [ConversationType.group, .selfConversation, .oneToOne, .connection]))
  func typesAreRead(number: Int, expected: ConversationType) throws {
    // given
    var members = Self.valid.objectValue ?? [:]
    members["type"] = .integer(number)

    // when
    let conversation = try ConversationPayload.parse(.object(members))

    // then
    #expect(conversation.type == expected)
  }

  @Test(
    "It names bad nested fields by their full key path",
    arguments: zip(
      [
        ["self": ["id": "nope"], "others": []] as JSONValue,
        [
          "self": ["id": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11"],
          "others": [["id": "0c7f5b86-1b77-4d3e-8f4f-6f0b2a0b6c22"], 4],
        ],
        ["self": ["id": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11"]],
        "everyone",
      ],
      ["members.self.id", "members.others[1]", "members.others", "members"]))
  func nestedErrors(members: JSONValue, keyPath: String) {
    // given
    var object = Self.valid.objectValue ?? [:]
    object["members"] = members

    // when
    let result = Result { () throws(PayloadError) in try ConversationPayload.parse(.object(object))
    }

    // then
    guard case .failure(let error) = result else {
      Issue.record("members \(members.jsonText) was accepted")
      return
    }
    #expect(error.fieldErrors.map(\.keyPath) == [keyPath])
  }

  @Test("It rejects an unknown conversation type", arguments: [4, -1])
  func unknownTypeIsRejected(number: Int) {
    // given
    var object = Self.valid.objectValue ?? [:]
    object["type"] = .integer(number)

    // when
    let result = Result { () throws(PayloadError) in try ConversationPayload.parse(.object(object))
    }

    // then
    guard case .failure(let error) = result else {
      Issue.record("type \(number) was accepted")
      return
    }
    #expect(error.fieldErrors.first?.expected == "one of 0, 1, 2, 3")
  }
}

@Suite("MessagePayload", .tags(.parsing), .timeBudget(.seconds(5)))
struct MessagePayloadTests {
  static let valid: JSONValue = [
    "nonce": "9b2f0c1e-3d4a-4b5c-8d6e-7f8091a2b3c4",
    "conversation": "f0e1d2c3-b4a5-4697-8877-665544332211",
    "from": "6f1d6c3a-5a57-4b9e-9a40-2a4a1f0e9d11", "text": "See you at 10",
    "time": "2026-11-21T10:00:00.123Z",
  ]

  @Test("It parses a message and encodes it back to the same JSON")
  func roundTrip() throws {
    // when
    let message = try MessagePayload.parse(Self.valid)

    // then
    #expect(message.text == "See you at 10")
    expectEqualJSON(message.jsonValue, Self.valid)
  }

  @Test("It reports every missing field of a message at once")
  func everyMissingFieldIsReported() {
    // when
    let result = Result { () throws(PayloadError) in try MessagePayload.parse([:]) }

    // then
    guard case .failure(let error) = result else {
      Issue.record("an empty message was accepted")
      return
    }
    expectSameElements(
      error.fieldErrors.map(\.keyPath), ["nonce", "conversation", "from", "text", "time"])
  }
}
