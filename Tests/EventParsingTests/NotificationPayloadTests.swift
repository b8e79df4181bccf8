import ConnectionParsing
import ConversationParsing
import EventParsing
import Foundation
import JSON
import ParsingCore
import TestSupport
import Testing
import UserParsing

@Suite("NotificationPayload", .tags(.parsing), .timeBudget(.seconds(5)))
struct NotificationPayloadTests {
  @Test("It parses a realistic page of notifications, keeping the bad one apart")
  func realisticPage() throws {
    // given
    let data = try Fixtures.data(named: "notifications-page.json", in: .module)

    // when
    let page = try Page<NotificationPayload>.parse(data, listKey: NotificationPayload.pageKey)

    // then
    #expect(page.elements.map(\.events.count) == [2, 4])
    #expect(page.failures.map(\.index) == [2])
    #expect(
      page.failures.first?.error.fieldErrors.map(\.keyPath) == [
        "notifications[2].payload[0].data.name"
      ])
    #expect(!page.hasMore)
  }

  @Test("It keeps an unknown event type whole instead of rejecting it")
  func unknownEventIsKept() throws {
    // given
    let raw: JSONValue = ["type": "team.member-join", "team": "a"]

    // when
    let event = try EventPayload.parse(raw)

    // then
    #expect(event == .unknown(type: "team.member-join", raw: raw))
    #expect(event.jsonValue == raw)
  }

  @Test("It encodes every event of the fixture back to the JSON it came from")
  func eventsRoundTrip() throws {
    // given
    let data = try Fixtures.data(named: "notifications-page.json", in: .module)
    let page = try Page<NotificationPayload>.parse(data, listKey: NotificationPayload.pageKey)
    let original = try JSONParser.parse(data)

    // when
    let encoded = page.elements.map(\.jsonValue)

    // then
    let originals = original["notifications"]?.arrayValue?.prefix(2).map { $0 } ?? []
    #expect(encoded.count == originals.count)
    for (mine, theirs) in zip(encoded, originals) {
      expectEqualJSON(mine, theirs, names: ("encoded", "original"))
    }
  }

  static let eventTypes: [(EventPayload, JSONValue)] = [
    (
      .userUpdate(UserUpdatePayload(id: UUID(1), name: "Ada")),
      [
        "type": "user.update",
        "user": ["id": "00000000-0000-0000-0000-000000000001", "name": "Ada"],
      ]
    ),
    (
      .memberLeave(
        ConversationEvent(
          conversation: UUID(2),
          from: UUID(3),
          time: Date(timeIntervalSince1970: 1_795_255_200),
          data: [UUID(3)])),
      [
        "type": "conversation.member-leave", "conversation": "00000000-0000-0000-0000-000000000002",
        "from": "00000000-0000-0000-0000-000000000003", "time": "2026-11-21T10:00:00.000Z",
        "data": ["user_ids": ["00000000-0000-0000-0000-000000000003"]],
      ]
    ),
  ]

  @Test("It reads the other event types", arguments: eventTypes)
  func otherEventTypes(expected: EventPayload, raw: JSONValue) throws {
    // when
    let event = try EventPayload.parse(raw)

    // then
    expectNoDifference(event, expected)
    expectEqualJSON(event.jsonValue, raw)
  }

  @Test(
    "It reports the missing parts of a known event",
    arguments: zip(
      [
        ["type": "conversation.rename"] as JSONValue, ["type": "user.connection"], ["type": 5], [:],
      ],
      [["conversation", "from", "time", "data"], ["connection"], ["type"], ["type"]]))
  func incompleteEvents(raw: JSONValue, keyPaths: [String]) {
    // when
    let result = Result { () throws(PayloadError) in try EventPayload.parse(raw) }

    // then
    guard case .failure(let error) = result else {
      Issue.record("\(raw.jsonText) was accepted")
      return
    }
    expectSameElements(error.fieldErrors.map(\.keyPath), keyPaths)
  }

  @Test(
    "It reads the version a notification carries, and names the field when it is not a whole number of 0 or more",
    arguments: [
      (JSONValue.integer(7), ServerVersion(7)?.rawValue, [String]()),
      (.null, nil, []),
      (.integer(-1), nil, ["version"]),
      (.string("7"), nil, ["version"]),
    ])
  func version(value: JSONValue, expected: Int?, badFields: [String]) throws {
    // given
    let raw: JSONValue = [
      "id": "2f1c9d52-6a0e-4c8e-9b57-0c2f5c1a7d11", "version": value, "payload": [],
    ]

    // when
    let result = Result { try NotificationPayload.parse(raw) }

    // then
    switch result {
    case .success(let notification):
      #expect(badFields.isEmpty)
      #expect(notification.version?.rawValue == expected)
    case .failure(let error):
      #expect((error as? PayloadError)?.fieldErrors.map(\.keyPath) == badFields)
    }
  }

  @Test("A notification with a version is written back with it")
  func versionRoundTrip() throws {
    // given
    let notification = NotificationPayload(id: UUID(), version: ServerVersion(3), events: [])

    // when
    let read = try NotificationPayload.parse(notification.jsonValue)

    // then
    #expect(read == notification)
  }
}
