import Foundation
import Models
import Seams
import TestSupport
import Testing

@testable import SQLiteStore

@Suite("RecordWritable", .tags(.models), .courier(timeBudget: .seconds(10)))
struct RecordWritableTests {
  /// A value written both ways, with a label for failures.
  struct Case: Sendable, CustomTestStringConvertible {
    let label: String
    let fieldByField: @Sendable () throws -> [UInt8]
    let codable: @Sendable () throws -> [UInt8]
    /// How many stored properties the value has, when all of them are set; `nil` otherwise.
    let storedProperties: Int?

    init<Value: RecordWritable & Encodable & Sendable>(
      _ label: String, _ value: Value, allSet: Bool = false
    ) {
      self.label = label
      fieldByField = { try value.record }
      codable = { try RecordWriter.bytes(of: value, codingPath: []) }
      storedProperties = allSet ? Self.storedProperties(of: value) : nil
    }

    /// How many stored properties `value` has, the values in a record's box counted one by one.
    static func storedProperties(of value: Any) -> Int {
      Mirror(reflecting: value).children.reduce(0) { count, child in
        count + (child.label == "box" ? boxedProperties(child.value) : 1)
      }
    }

    /// The stored properties of what a box holds: through its optional and its case, and the
    /// values it keeps.
    static func boxedProperties(_ value: Any) -> Int {
      let mirror = Mirror(reflecting: value)
      if mirror.displayStyle == .optional || mirror.displayStyle == .enum,
        let payload = mirror.children.first
      {
        return boxedProperties(payload.value)
      }
      if mirror.children.count == 1, let only = mirror.children.first, only.label == "values" {
        return boxedProperties(only.value)
      }
      return mirror.children.count
    }

    var testDescription: String { label }
  }

  static let ids = (1...40).map { UUID(UInt64($0)) }
  static let time = Date(timeIntervalSince1970: 1_700_000_000.25)

  static let user = User(
    id: ids[0], isSelf: true, name: "Ada ✓", handle: "ada", accentID: -3, email: "a@b.c")
  static let group = Conversation(
    id: ids[1], kind: .group, name: "Team", creatorID: ids[0],
    participantIDs: Set(ids[0..<12]), lastEventTime: time)
  static let message = Message(
    nonce: ids[2], conversationID: ids[1], senderID: ids[0], text: "Hi", localTime: time,
    serverTime: time.addingTimeInterval(-1.5), deliveryState: .sent)
  static let connection = Connection(
    from: ids[0], to: ids[3], status: .missingLegalholdConsent, conversationID: ids[4],
    lastUpdate: time, message: "Hello")

  /// A record of every part, with a member list long enough that its length takes two bytes.
  static var fullRecord: PendingChange<Conversation> {
    var record = PendingChange<Conversation>()
    record.isInserted = true
    record.keys = [.name, .participantIDs]
    record.original = group
    record.failure = PushFailure(reason: "no", status: 403, label: "forbidden")
    record.unconfirmed = [
      UnconfirmedValue(
        keys: [.name], value: group, mark: WriteAheadMark(serial: 8),
        editedSince: EditBase(keys: [.participantIDs], value: group),
        call: RecordedCall(
          idempotencyKey: "k-8", method: "DELETE", segments: ["conversations", "lunch", "members"],
          body: Data(#"{"users":[]}"#.utf8)))
    ]
    record.editBase = group
    record.originalVersion = 42
    return record
  }

  /// The groups ``fullRecord`` holds, each of them written inside it.
  static let fullRecordGroups = [group]

  static let cases: [Case] = {
    var renamed = PendingChange<User>()
    renamed.keys = [.name]
    renamed.original = user
    renamed.editBase = user
    return [
      Case("a user with every property set", user, allSet: true),
      Case("a user with none of its optionals", User(id: ids[5], name: "")),
      Case("a group with every property set", group, allSet: true),
      Case(
        "a one-to-one with no name and no one in it",
        Conversation(
          id: ids[6], kind: .oneToOne, creatorID: ids[0], participantIDs: [],
          lastEventTime: Date(timeIntervalSince1970: 0))),
      Case("a message with every property set", message, allSet: true),
      Case(
        "a message not yet sent",
        Message(
          nonce: ids[7], conversationID: ids[1], senderID: ids[0], text: "", localTime: time)),
      Case("a connection with every property set", connection, allSet: true),
      Case(
        "a connection without a conversation or a message",
        Connection(from: ids[0], to: ids[8], status: .sent, lastUpdate: time)),
      Case("a change-log record with every part", fullRecord, allSet: true),
      Case("a change-log record of one renamed key", renamed),
      Case("an empty change-log record", PendingChange<Message>()),
    ]
  }()

  @Test("It writes the same bytes as the Codable form", arguments: cases)
  func sameBytes(_ value: Case) throws {
    // when
    let written = try value.fieldByField()

    // then
    #expect(written == (try value.codable()))
  }

  @Test(
    "It writes a field for every stored property",
    arguments: cases.filter { $0.storedProperties != nil })
  func everyProperty(_ value: Case) throws {
    // given
    let record = try value.fieldByField()

    // when: a record starts with its field count, one byte below 128
    let fields = Int(try #require(record.first))

    // then
    #expect(fields == value.storedProperties)
  }

  @Test("Seeded random objects and records write the same bytes as the Codable form")
  func randomValues() throws {
    // given
    var random = SeededRandomNumberGenerator(seed: 61)
    func text() -> String? {
      guard Bool.random(using: &random) else { return nil }
      let pieces = ["a", "Zoë", "✓", " ", "日本", ",", ""]
      return (0..<Int.random(in: 0...40, using: &random)).map { _ in
        pieces.randomElement(using: &random) ?? ""
      }.joined()
    }
    func id() -> UUID { UUID(UInt64.random(in: 1...500, using: &random)) }
    var mismatches: [String] = []

    // when
    for index in 0..<300 {
      let user = User(
        id: id(), isSelf: Bool.random(using: &random), name: text() ?? "",
        handle: text(), accentID: Int.random(in: Int.min...Int.max, using: &random),
        email: text())
      let group = Conversation(
        id: id(), kind: Conversation.Kind.allCases.randomElement(using: &random) ?? .group,
        name: text(), creatorID: id(),
        participantIDs: Set((0..<Int.random(in: 0...20, using: &random)).map { _ in id() }),
        lastEventTime: Date(timeIntervalSince1970: .random(in: -1e9...1e9, using: &random)))
      var record = PendingChange<Conversation>()
      record.keys = Set(Conversation.Key.allCases.filter { _ in Bool.random(using: &random) })
      record.original = Bool.random(using: &random) ? group : nil
      record.originalVersion = Bool.random(using: &random) ? index : nil
      let values: [Case] = [Case("user", user), Case("group", group), Case("record", record)]
      for value in values where try value.fieldByField() != value.codable() {
        mismatches.append("\(value.label) \(index)")
      }
    }

    // then
    #expect(mismatches.isEmpty, "\(mismatches.count) differ, first \(mismatches.prefix(3))")
  }
}
