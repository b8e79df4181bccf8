import Foundation
import Models
import TestSupport
import Testing

@Suite("SyncMetadata", .tags(.models, .sync), .timeBudget(.seconds(5)))
struct SyncMetadataTests {
  static let (lunch, team) = (UUID(1), UUID(2))
  static let (ann, bob) = (UUID(11), UUID(12))

  /// Metadata awaiting the news of one deleted message and of two answered member changes:
  /// Ann's removal from Lunch, then Bob's addition to Team.
  static func awaiting() -> SyncMetadata {
    var metadata = SyncMetadata(
      lastNotificationID: nil, deletedMessagesAwaitingNews: [UUID(21)],
      leftGroupsAwaitingNews: [UUID(31)])
    metadata.awaitNews(ofMembers: [ann], joining: false, conversation: lunch)
    metadata.awaitNews(ofMembers: [bob], joining: true, conversation: team)
    return metadata
  }

  @Test("Answered member changes are numbered in the order they are recorded; none for no users")
  func recordsAreNumbered() {
    // given
    var metadata = Self.awaiting()

    // when
    metadata.awaitNews(ofMembers: [], joining: true, conversation: Self.lunch)

    // then
    #expect(metadata.memberChangesAwaitingNews.map(\.number) == [0, 1])
    #expect(metadata.answersRecorded == 2)
    #expect(metadata.membersAwaitingNews(in: Self.lunch) == [Self.ann])
    #expect(metadata.membersAwaitingNews(in: Self.team) == [Self.bob])
  }

  @Test("A mark forgets only the records that existed when it was taken")
  func markForgetsOnlyOlderRecords() {
    // given: a mark taken after the first two records; then another of each kind
    var metadata = Self.awaiting()
    let mark = metadata.awaitedNewsMark
    metadata.deletedMessagesAwaitingNews.insert(UUID(22))
    metadata.leftGroupsAwaitingNews.insert(UUID(32))
    metadata.awaitNews(ofMembers: [Self.ann], joining: true, conversation: Self.lunch)

    // when
    metadata.forgetAwaitedNews(recordedBefore: mark)

    // then
    #expect(metadata.deletedMessagesAwaitingNews == [UUID(22)])
    #expect(metadata.leftGroupsAwaitingNews == [UUID(32)])
    #expect(
      metadata.memberChangesAwaitingNews == [
        AnsweredMemberChange(number: 2, conversation: Self.lunch, joined: true, users: [Self.ann])
      ])
  }

  @Test("Forgetting what was recorded since a mark keeps what was recorded before it")
  func forgetSinceMark() {
    // given
    var metadata = Self.awaiting()
    let mark = metadata.awaitedNewsMark
    metadata.deletedMessagesAwaitingNews.insert(UUID(22))
    metadata.leftGroupsAwaitingNews.insert(UUID(32))
    metadata.awaitNews(ofMembers: [Self.ann], joining: true, conversation: Self.lunch)
    metadata.awaitNews(of: .accent(3))

    // when
    metadata.forgetAwaitedNews(recordedSince: mark)

    // then
    #expect(metadata == Self.awaiting().with(answersRecorded: 4))
  }

  @Test(
    "News take the first record with the same group, direction and users, and nothing else",
    arguments: zip(
      [
        (Self.lunch, false, [Self.ann]), (Self.lunch, true, [Self.ann]),
        (Self.team, false, [Self.ann]),
        (Self.team, true, [Self.ann, Self.bob]),
      ],
      [true, false, false, false]))
  func newsTakeTheirRecord(news: (UUID, Bool, [UUID]), taken: Bool) {
    // given
    var metadata = Self.awaiting()
    let (conversation, joined, users) = news

    // when
    let took = metadata.takeMemberChange(
      of: Set(users), joining: joined, conversation: conversation)

    // then
    #expect(took == taken)
    #expect(metadata.memberChangesAwaitingNews.count == (taken ? 1 : 2))
  }

  @Test(
    "News of anyone take their users out of a record the backend answered as made already, and of the self user only out of their own",
    arguments: zip(
      [
        (false, [Self.ann]), (false, [Self.ann, Self.bob]), (true, [Self.bob]),
        (false, [UUID(13)]),
      ],
      [[Self.bob], [], [Self.ann], [Self.ann, Self.bob]] as [Set<UUID>]))
  func newsOfAnyoneTakeTheirUsers(news: (Bool, [UUID]), left: Set<UUID>) {
    // given: the removal of Ann and Bob from Lunch, answered as made already
    var metadata = SyncMetadata()
    metadata.awaitNews(
      ofMembers: [Self.ann, Self.bob], joining: false, conversation: Self.lunch, fromAnyone: true)
    let (fromSelfUser, users) = news

    // when
    metadata.takeMemberChange(
      of: Set(users), joining: false, conversation: Self.lunch, fromSelfUser: fromSelfUser)

    // then
    #expect(metadata.membersAwaitingNews(in: Self.lunch) == left)
    #expect(metadata.memberChangesAwaitingNews.count == (left.isEmpty ? 0 : 1))
  }

  @Test(
    "News of a value pass over while an answered change of its key waits, and the change's own news end the wait and apply",
    arguments: zip(
      [AnsweredValue.selfName("Old"), .selfName("Ada"), .accent(2)],
      [(true, 1), (false, 0), (false, 1)]))
  func valueNewsPassOver(news: AnsweredValue, expected: (passesOver: Bool, left: Int)) {
    // given: the self user's new name, Ada, answered
    var metadata = SyncMetadata()
    metadata.awaitNews(of: .selfName("Ada"))

    // when
    let passes = metadata.passesOver(news)

    // then
    #expect(passes == expected.passesOver)
    #expect(metadata.valueChangesAwaitingNews.count == expected.left)
  }

  @Test("Forgetting a group's member changes leaves the other groups'")
  func forgetGroup() {
    // given
    var metadata = Self.awaiting()

    // when
    metadata.forgetChanges(ofGroup: Self.lunch)

    // then
    #expect(metadata.memberChangesAwaitingNews.map(\.conversation) == [Self.team])
  }

  @Test("Value changes share the numbering of member changes, and go with their group")
  func valueChanges() {
    // given
    var metadata = Self.awaiting()

    // when
    metadata.awaitNews(of: .groupName(conversation: Self.lunch, name: "Brunch"))
    metadata.awaitNews(of: .selfName("Ada"))
    metadata.forgetChanges(ofGroup: Self.lunch)

    // then
    #expect(
      metadata.valueChangesAwaitingNews == [AnsweredValueChange(number: 3, value: .selfName("Ada"))]
    )
    #expect(metadata.isAwaitingNews(of: .selfName))
    #expect(!metadata.isAwaitingNews(of: .groupName(Self.lunch)))
    let tookBea = metadata.takeValueChange(.selfName("Bea"))
    let tookAda = metadata.takeValueChange(.selfName("Ada"))
    #expect(!tookBea)
    #expect(tookAda)
    #expect(metadata.valueChangesAwaitingNews.isEmpty)
  }
}

extension SyncMetadata {
  /// The same metadata with the answer count at `count`.
  fileprivate func with(answersRecorded count: Int) -> SyncMetadata {
    var copy = self
    copy.answersRecorded = count
    return copy
  }
}
