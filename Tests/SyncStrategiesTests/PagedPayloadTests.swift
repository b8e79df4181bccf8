import ConnectionParsing
import ConversationParsing
import EventParsing
import Foundation
import JSON
import ParsingCore
import SyncStrategies
import TestSupport
import Testing

@Suite("PagedPayload", .tags(.sync, .parsing))
struct PagedPayloadTests {
  /// How an element of a test page arrives.
  enum Arrival: CustomTestStringConvertible {
    /// A notification that reads.
    case readable
    /// A notification whose events do not read, with its id.
    case unreadable
    /// A notification with no id that reads.
    case anonymous

    var testDescription: String {
      switch self {
      case .readable: "r"
      case .unreadable: "u"
      case .anonymous: "a"
      }
    }

    /// The element as the backend would write it, the notification with id `UUID(index)`.
    func json(at index: Int) -> JSONValue {
      let id = JSONValue.string(UUID(UInt64(index)).lowercasedText)
      switch self {
      case .readable: return ["id": id, "payload": []]
      case .unreadable: return ["id": id, "payload": "not a list"]
      case .anonymous: return ["id": "not an id", "payload": []]
      }
    }
  }

  /// A page of notifications arriving as `arrivals`, one per position.
  static func page(_ arrivals: [Arrival]) throws -> Page<NotificationPayload> {
    try Page.parse(
      [
        "notifications": .array(arrivals.enumerated().map { $1.json(at: $0) }),
        "has_more": true,
      ], listKey: NotificationPayload.pageKey)
  }

  @Test(
    "The next page starts after the last element whose id reads, whether the rest of it reads",
    arguments: zip(
      [
        [], [.readable, .readable], [.readable, .unreadable], [.unreadable, .readable, .anonymous],
        [.readable, .anonymous], [.anonymous, .anonymous], [.unreadable, .unreadable],
      ]
        as [[Arrival]],
      [nil, 1, 1, 1, 0, nil, 1] as [Int?]))
  func cursor(arrivals: [Arrival], position: Int?) throws {
    // given
    let page = try Self.page(arrivals)

    // when
    let cursor = page.cursor

    // then
    #expect(cursor == position.map { UUID(UInt64($0)) })
  }

  @Test("The elements that do not read are listed with their places, and ids where they read")
  func unreadableElements() throws {
    // given
    let page = try Self.page([.unreadable, .readable, .anonymous])

    // when
    let unreadable = page.unreadableElements

    // then
    #expect(unreadable.map(\.index) == [0, 2])
    #expect(unreadable.map(\.id) == [UUID(0), nil])
    #expect(
      unreadable.first?.description.hasPrefix("element 0 (\(UUID(0).lowercasedText)): ") == true)
  }

  @Test("A page of connections is read on after the other user of the last, even unreadable")
  func connectionCursor() throws {
    // given: the last connection has a status this client does not know
    let connections = [UUID(1), UUID(2)].map {
      ConnectionPayload(
        from: UUID(9), to: $0, status: .accepted, conversation: UUID(10),
        lastUpdate: Date(timeIntervalSince1970: 1_800_000_000)
      ).jsonValue
    }
    let unknownStatus: JSONValue
    if case .object(var members) = connections[1] {
      members["status"] = "befriended"
      unknownStatus = .object(members)
    } else {
      unknownStatus = connections[1]
    }
    let page = try Page<ConnectionPayload>.parse(
      ["connections": [connections[0], unknownStatus], "has_more": true],
      listKey: ConnectionPayload.pageKey)

    // when
    let cursor = page.cursor

    // then
    #expect(page.elements.count == 1)
    #expect(cursor == UUID(2))
  }
}
