import EventParsing
import FakeBackend
import Foundation
import ParsingCore
import TestSupport
import Testing

@Suite("CursorTrack", .tags(.sync))
struct CursorTrackTests {
  /// A stream of `count` notifications with no events.
  static func stream(_ count: Int) -> [NotificationPayload] {
    (0..<count).map { NotificationPayload(id: UUID(UInt64($0 + 1)), events: []) }
  }

  /// Moves a track through the positions of `moves` in a stream of five; the reports, one per
  /// move, `nil` where the move kept the rule.
  static func reports(of moves: [Int]) -> [String?] {
    let stream = stream(5)
    var track = CursorTrack()
    return moves.map { index in
      track.move(to: index < 5 ? stream[index].id : UUID(99), in: stream)
    }
  }

  @Test("A cursor that moves forward or stays keeps the rule")
  func forward() {
    // when
    let reports = Self.reports(of: [0, 2, 2, 4])

    // then
    #expect(reports.allSatisfy { $0 == nil })
  }

  @Test("A cursor that moves back is reported, and the furthest position is kept")
  func back() {
    // when
    let reports = Self.reports(of: [3, 1, 2, 4])

    // then
    #expect(reports[0] == nil)
    #expect(reports[1] == "the notification cursor moved back from position 3 to 1")
    #expect(reports[2] == "the notification cursor moved back from position 3 to 2")
    #expect(reports[3] == nil)
  }

  @Test("A cursor naming a notification the backend no longer keeps is passed over")
  func forgotten() {
    // when: 5 is not in the stream
    let reports = Self.reports(of: [2, 5, 3])

    // then
    #expect(reports.allSatisfy { $0 == nil })
  }

  @Test("A cursor is placed in the stream as it is now, after the backend forgot its oldest news")
  func expired() {
    // given: a cursor at the third of five notifications; the backend then forgets the first
    // three, the cursor's too
    let stream = Self.stream(5)
    var track = CursorTrack()
    _ = track.move(to: stream[2].id, in: stream)
    let kept = Array(stream.dropFirst(3))

    // when: the cursor moves to the fourth, now the first kept, then to the fifth
    let reports = [
      track.move(to: stream[3].id, in: kept), track.move(to: stream[4].id, in: kept),
      track.move(to: stream[3].id, in: kept),
    ]

    // then: forward twice, then back
    #expect(reports[0] == nil)
    #expect(reports[1] == nil)
    #expect(reports[2] == "the notification cursor moved back from position 1 to 0")
  }
}
