import Foundation
import Models
import ModelsTestSupport
import Seams
import TestSupport
import Testing

@testable import SQLiteStore

@Suite("RecordEncoder and RecordDecoder", .tags(.models), .courier(timeBudget: .seconds(10)))
struct RecordCoderTests {
  static let make = ModelFactory()

  /// One value of each kind the store keeps, with its optionals set and unset.
  static let values: [any Codable & Equatable & Sendable] = {
    let me = make.selfUser(name: "Mé ✓")
    var ann = make.user(name: "Ann", accentID: -3)
    ann.handle = "ann"
    let group = make.conversation(name: nil, creator: me, participants: [ann])
    var message = make.message(in: group, from: me, text: "")
    message.serverTime = Date(timeIntervalSince1970: -1.5)
    var record = PendingChange<Conversation>()
    record.isInserted = true
    record.keys = [.name, .participantIDs]
    record.original = group
    record.failure = PushFailure(reason: "no", status: 403, label: nil)
    record.unconfirmed = [
      UnconfirmedValue(keys: [.participantIDs], value: group),
      UnconfirmedValue(
        keys: [.name, .participantIDs], value: group, mark: WriteAheadMark(serial: 7)),
      UnconfirmedValue(
        keys: [.name], value: group, mark: WriteAheadMark(serial: 8),
        editedSince: EditBase(keys: [.participantIDs], value: group)),
      UnconfirmedValue(
        keys: [.name], value: group, mark: WriteAheadMark(serial: 9),
        call: RecordedCall(
          idempotencyKey: "k-9", method: "PUT", segments: ["conversations", "lunch"],
          body: Data(#"{"name":"Brunch"}"#.utf8))),
      UnconfirmedValue(
        keys: [.name, .participantIDs], value: group, mark: WriteAheadMark(serial: 10),
        call: RecordedCall(
          idempotencyKey: "k-10", method: "PUT", segments: ["conversations", "lunch"], body: nil),
        savedSince: [.name, .participantIDs],
        savedElementsSince: [.participantIDs: [SetElement(ann.id)]]),
    ]
    // A leave that went: its write-ahead record carries no key, only the call.
    var left = PendingChange<Conversation>()
    left.isDeleted = true
    left.original = group
    left.unconfirmed = [
      UnconfirmedValue(
        keys: [], value: group, mark: WriteAheadMark(serial: 11),
        call: RecordedCall(
          idempotencyKey: "k-11", method: "DELETE",
          segments: ["conversations", "lunch", "members"], body: Data(#"{"users":[]}"#.utf8)))
    ]
    var based = PendingChange<Conversation>()
    based.keys = [.participantIDs]
    based.original = group
    based.editBase = group
    based.originalVersion = 42
    return [
      me, ann, group, message, make.connection(from: me, to: ann, message: "Hi"), record, left,
      based,
      PendingChange<User>(), SyncMetadata(lastNotificationID: UUID(3)), SyncMetadata(),
      SyncMetadata(lastNotificationID: UUID(3), usersToFetch: [UUID(5), UUID(4)]),
      SyncMetadata(lastNotificationID: nil, createdGroupsToConfirm: [UUID(7), UUID(6)]),
      SyncMetadata(
        lastNotificationID: nil,
        awaitedNews: [
          .selfName: .answered(6), .accent: .answered(7), .handle: .answered(8),
          .groupName(UUID(7)): .answered(9), .groupName(UUID(5)): .answered(9),
          .member(UUID(6), conversation: UUID(7)): .answered(4),
          .member(UUID(8), conversation: UUID(7)): .answered(4),
          .connectionStatus(UUID(2)): .answered(10), .deletedMessage(UUID(9)): .ownNews,
          .leftGroup(UUID(3)): .answered(11), .createdGroup(UUID(4)): .answered(12),
        ],
        answeredValues: [
          .groupName(UUID(7)): .name("Lunch"), .groupName(UUID(5)): .name(nil),
          .member(UUID(6), conversation: UUID(7)): .member(true),
          .member(UUID(8), conversation: UUID(7)): .member(false),
        ]),
    ]
  }()

  @Test("Every kind of stored value reads back equal", arguments: values.indices)
  func roundTrip(index: Int) throws {
    // given
    let value = Self.values[index]

    // when
    let decoded = try Self.roundTrip(value)

    // then
    #expect(decoded)
  }

  /// Whether `value` reads back equal to itself.
  static func roundTrip<Value: Codable & Equatable>(_ value: Value) throws -> Bool {
    let bytes = try RecordEncoder().encode(value)
    return try RecordDecoder().decode(Value.self, from: bytes) == value
  }

  /// Metadata as a store written before the awaited keys had versions holds it.
  struct MetadataBeforeVersions: Codable {
    var lastNotificationID: UUID?
    var usersToFetch: [UUID] = []
    var deletedMessagesAwaitingNews: [UUID]
    var leftGroupsAwaitingNews: [UUID]
    var answersRecorded = 3
  }

  @Test(
    "Metadata written before versions keeps its deleted messages and left groups waiting for their own news"
  )
  func metadataBeforeVersions() throws {
    // given
    let bytes = try RecordEncoder().encode(
      MetadataBeforeVersions(
        lastNotificationID: UUID(1), deletedMessagesAwaitingNews: [UUID(2)],
        leftGroupsAwaitingNews: [UUID(3)]))

    // when
    let metadata = try RecordDecoder().decode(SyncMetadata.self, from: bytes)

    // then
    #expect(metadata.lastNotificationID == UUID(1))
    #expect(
      metadata.awaitedNews == [.deletedMessage(UUID(2)): .ownNews, .leftGroup(UUID(3)): .ownNews])
  }

  /// Metadata as a store written before waits for a key's own news had a name holds it: such
  /// a wait under the largest version.
  struct MetadataWithLargestVersion: Codable {
    struct Answer: Codable {
      var key: AwaitedKey
      var version: Int
    }
    var usersToFetch: [UUID] = []
    var awaitedNews: [Answer]
  }

  @Test(
    "Metadata that wrote a wait for a deletion's own news as the largest version reads it as such a wait"
  )
  func metadataWithLargestVersion() throws {
    // given
    let bytes = try RecordEncoder().encode(
      MetadataWithLargestVersion(awaitedNews: [
        .init(key: .groupName(UUID(4)), version: 7),
        .init(key: .deletedMessage(UUID(2)), version: .max),
      ]))

    // when
    let metadata = try RecordDecoder().decode(SyncMetadata.self, from: bytes)

    // then
    #expect(
      metadata.awaitedNews == [
        .groupName(UUID(4)): .answered(7), .deletedMessage(UUID(2)): .ownNews,
      ])
  }

  @Test("A record cut short anywhere is a decoding error naming it damaged, never a crash")
  func truncated() throws {
    // given
    let bytes = try RecordEncoder().encode(Self.values[3] as? Message)

    // when
    let outcomes = (0..<bytes.count).map { length in
      Result { try RecordDecoder().decode(Message.self, from: Array(bytes.prefix(length))) }
    }

    // then
    for (length, outcome) in outcomes.enumerated() {
      #expect(throws: DecodingError.self, "cut at \(length) of \(bytes.count)") {
        try outcome.get()
      }
    }
  }

  @Test("Seeded random bytes are read or refused with a decoding error, never a crash")
  func randomBytes() {
    // given
    var random = SeededRandomNumberGenerator(seed: 11)
    let inputs = (0..<2_000).map { _ in
      (0..<Int.random(in: 0...80, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
    }

    // when
    let failures = inputs.compactMap { bytes -> (any Error)? in
      do {
        _ = try RecordDecoder().decode(PendingChange<Conversation>.self, from: bytes)
        return nil
      } catch {
        return error
      }
    }

    // then
    #expect(failures.allSatisfy { $0 is DecodingError })
    #expect(failures.count > 1_900)
  }

  @Test("Sync metadata written before it owed user fetches reads back owing none")
  func metadataBeforeUsersToFetch() throws {
    // given: the metadata's shape before `usersToFetch`
    struct Before: Codable { var lastNotificationID: UUID? }
    let bytes = try RecordEncoder().encode(Before(lastNotificationID: UUID(3)))

    // when
    let metadata = try RecordDecoder().decode(SyncMetadata.self, from: bytes)

    // then
    #expect(metadata == SyncMetadata(lastNotificationID: UUID(3)))
  }

  @Test("Sync metadata written before it kept created groups to confirm reads back with none")
  func metadataBeforeGroupsToConfirm() throws {
    // given: the metadata's shape before `createdGroupsToConfirm`
    struct Before: Codable {
      var lastNotificationID: UUID?
      var usersToFetch: [UUID]
    }
    let bytes = try RecordEncoder().encode(
      Before(lastNotificationID: UUID(3), usersToFetch: [UUID(4)]))

    // when
    let metadata = try RecordDecoder().decode(SyncMetadata.self, from: bytes)

    // then
    #expect(metadata == SyncMetadata(lastNotificationID: UUID(3), usersToFetch: [UUID(4)]))
  }

  @Test("An unknown key name in a record is refused, naming it")
  func unknownKey() throws {
    // given
    struct Wrong: Codable {
      var isInserted = false
      var isDeleted = false
      var keys = "name,colour"
    }
    let bytes = try RecordEncoder().encode(Wrong())

    // when
    let error = #expect(throws: DecodingError.self) {
      try RecordDecoder().decode(PendingChange<User>.self, from: bytes)
    }

    // then
    #expect("\(String(describing: error))".contains("'colour' is not a key"))
  }
}
