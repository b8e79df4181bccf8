import Foundation
import Models
import TestSupport
import Testing

@Suite("SyncMetadata", .tags(.models, .sync), .timeBudget(.seconds(5)))
struct SyncMetadataTests {
  static let (lunch, team) = (UUID(1), UUID(2))
  static let (ann, bob) = (UUID(11), UUID(12))

  /// Metadata awaiting the news of Lunch's name at 5, of Bob in Team at 7 and of a deleted
  /// message at 9.
  static func awaiting() -> SyncMetadata {
    var metadata = SyncMetadata()
    metadata.awaitNews(of: .groupName(lunch), answeredAt: 5)
    metadata.awaitNews(of: .member(bob, conversation: team), answeredAt: 7)
    metadata.awaitNews(of: .deletedMessage(UUID(21)), answeredAt: 9)
    return metadata
  }

  @Test(
    "News of an awaited key below its answer's version are passed over, and news at it or later end the wait",
    arguments: [
      (HeardNews.version(4), true, true), (.version(5), false, false), (.version(6), false, false),
      (.unversioned, false, true),
    ])
  func newsAgainstTheAnswer(news: HeardNews, passedOver: Bool, stillAwaited: Bool) {
    // given
    var metadata = Self.awaiting()

    // when
    let passed = metadata.passesOver(.groupName(Self.lunch), heard: news)

    // then
    #expect(passed == passedOver)
    #expect(metadata.isAwaitingNews(of: .groupName(Self.lunch)) == stillAwaited)
  }

  @Test(
    "An answer is newer than news below its version, or without one, and asking ends no wait",
    arguments: [(HeardNews?.some(.version(4)), true), (.version(5), false), (nil, true)])
  func answeredAfter(news: HeardNews?, newer: Bool) {
    // given
    let metadata = Self.awaiting()

    // when
    let answered = metadata.isAnswered(.groupName(Self.lunch), after: news)

    // then
    #expect(answered == newer)
    #expect(metadata.isAwaitingNews(of: .groupName(Self.lunch)))
  }

  @Test("News of a key no answer set apply")
  func newsOfAnotherKey() {
    // given
    var metadata = Self.awaiting()

    // when
    let passed = metadata.passesOver(.groupName(Self.team), heard: .version(1))

    // then
    #expect(!passed)
    #expect(metadata.awaitedNews.count == 3)
  }

  @Test("A key answered again keeps the later version, whichever answer is recorded last")
  func laterAnswerWins() {
    // given
    var metadata = Self.awaiting()

    // when
    metadata.awaitNews(of: .groupName(Self.lunch), answeredAt: 8)
    metadata.awaitNews(of: .groupName(Self.lunch), answeredAt: 6)

    // then
    #expect(metadata.awaitedNews[.groupName(Self.lunch)] == .answered(8))
  }

  @Test(
    "An answer without a version leaves a deleted message or a left group waiting for their own news, and no other key",
    arguments: [
      (AwaitedKey.deletedMessage(UUID(22)), AwaitedVersion?.some(.ownNews)),
      (.leftGroup(UUID(32)), .ownNews),
      (.selfName, nil), (.member(UUID(12), conversation: UUID(1)), nil),
    ])
  func answerWithoutVersion(key: AwaitedKey, awaited: AwaitedVersion?) {
    // given
    var metadata = SyncMetadata()

    // when
    metadata.awaitNews(of: key, answeredAt: nil)

    // then
    #expect(metadata.awaitedNews[key] == awaited)
  }

  @Test(
    "Reading to the end at a version forgets the keys answered at it or before",
    arguments: [(Int?.some(4), 3), (5, 2), (8, 1), (9, 0), (nil, 3)])
  func forgetThrough(version: Int?, left: Int) {
    // given
    var metadata = Self.awaiting()

    // when
    metadata.forgetAwaitedNews(through: version)

    // then
    #expect(metadata.awaitedNews.count == left)
  }

  @Test(
    "News that take the self user out of a group forget its keys answered before them, and leave the rest",
    arguments: [
      (HeardNews?.some(.version(6)), [AwaitedKey.member(ann, conversation: lunch)]),
      (.version(4), [.groupName(lunch), .member(ann, conversation: lunch)]),
      (.unversioned, []), (nil, []),
    ])
  func forgetGroup(news: HeardNews?, kept: [AwaitedKey]) {
    // given
    var metadata = Self.awaiting()
    metadata.awaitNews(of: .member(Self.ann, conversation: Self.lunch), answeredAt: 7)

    // when
    metadata.forgetChanges(ofGroup: Self.lunch, before: news)

    // then
    let others: Set<AwaitedKey> = [
      .member(Self.bob, conversation: Self.team), .deletedMessage(UUID(21)),
    ]
    #expect(Set(metadata.awaitedNews.keys) == others.union(kept))
  }

  /// A way a wait ends.
  enum WaitEnding: CaseIterable, Sendable {
    case ownNews, endWait, readThrough, drop
  }

  @Test(
    "A key's answered value goes with its wait, however the wait ends",
    arguments: WaitEnding.allCases)
  func valueGoesWithItsWait(ending: WaitEnding) {
    // given
    var metadata = Self.awaiting()
    metadata.awaitNews(of: .groupName(Self.lunch), answeredAt: 5, setting: .name("Brunch"))

    // when
    switch ending {
    case .ownNews: _ = metadata.passesOver(.groupName(Self.lunch), heard: .version(5))
    case .endWait: metadata.endWait(of: .groupName(Self.lunch))
    case .readThrough: metadata.forgetAwaitedNews(through: 5)
    case .drop: metadata.forgetChanges(ofGroup: Self.lunch, before: .version(6))
    }

    // then
    #expect(metadata.answeredValues.isEmpty)
    #expect(!metadata.isAwaitingNews(of: .groupName(Self.lunch)))
  }

  @Test(
    "A key answered again keeps the value of its later answer, whichever answer is recorded last",
    arguments: [(6, 8, "Second"), (8, 6, "First")])
  func laterAnswerKeepsItsValue(first: Int, second: Int, kept: String) {
    // given
    var metadata = SyncMetadata()

    // when
    metadata.awaitNews(of: .groupName(Self.lunch), answeredAt: first, setting: .name("First"))
    metadata.awaitNews(of: .groupName(Self.lunch), answeredAt: second, setting: .name("Second"))

    // then
    #expect(metadata.answeredValues[.groupName(Self.lunch)] == .name(kept))
  }

  @Test(
    "An answered value is given for news older than its answer, and for no other news",
    arguments: [
      (HeardNews?.some(.version(4)), AnsweredValue?.some(.member(true))), (.version(7), nil),
    ])
  func answeredValue(news: HeardNews?, value: AnsweredValue?) {
    // given
    var metadata = SyncMetadata()
    let key = AwaitedKey.member(Self.ann, conversation: Self.lunch)
    metadata.awaitNews(of: key, answeredAt: 7, setting: .member(true))

    // when
    let answered = metadata.answeredValue(of: key, after: news)

    // then
    #expect(answered == value)
  }

  @Test("Ending a key's wait forgets it alone")
  func endWait() {
    // given
    var metadata = Self.awaiting()

    // when
    metadata.endWait(of: .deletedMessage(UUID(21)))

    // then
    #expect(metadata.awaitedNews.count == 2)
    #expect(!metadata.isAwaitingNews(of: .deletedMessage(UUID(21))))
  }
}
