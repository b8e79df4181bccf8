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

  static let eventTypes: [(String, JSONValue)] = [
    (
      "user.update",
      [
        "type": "user.update",
        "user": ["id": "1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d", "name": "Ada"],
      ]
    ),
    (
      "conversation.member-leave",
      [
        "type": "conversation.member-leave", "conversation": "f0e1d2c3-b4a5-4697-8877-665544332211",
        "from": "0c7f5b86-1b77-4d3e-8f4f-6f0b2a0b6c22", "time": "2026-11-21T10:00:00.000Z",
        "data": ["user_ids": ["0c7f5b86-1b77-4d3e-8f4f-6f0b2a0b6c22"]],
      ]
    ),
  ]

  @Test("It reads the other event types", arguments: eventTypes)
  func otherEventTypes(name: String, raw: JSONValue) throws {
    // when
    let event = try EventPayload.parse(raw)

    // then
    switch event {
    case .userUpdate(let update): #expect(name == "user.update" && update.name == "Ada")
    case .memberLeave(let leave):
      #expect(name == "conversation.member-leave" && leave.data.count == 1)
    default: Issue.record("\(name) parsed as \(event)")
    }
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
}
