import EventParsing
import FakeBackend
import Foundation
import ParsingCore
import TestSupport
import Testing

@Suite("NameOrderTrack", .tags(.sync))
struct NameOrderTrackTests {
  static let group = UUID(100)
  static let me = UUID(200)

  /// A stream in which the group is renamed to each of `names` in turn, one version each.
  static func stream(_ names: [String]) -> [NotificationPayload] {
    names.enumerated().map { index, name in
      NotificationPayload(
        id: UUID(UInt64(index + 1)), version: ServerVersion(index + 1),
        events: [
          .conversationRename(
            ConversationEvent(
              conversation: group, from: me, time: Date(timeIntervalSince1970: 0), data: name))
        ])
    }
  }

  /// What a context showing `shown` in turn is told, one report per name.
  static func reports(showing shown: [String], after names: [String]) -> [String?] {
    var track = NameOrderTrack()
    track.read(stream(names), of: me)
    return shown.map { track.show($0, of: group, in: "UI") }
  }

  @Test("Names shown in the server's order, or set here and not sent, keep the rule")
  func inOrder() {
    // when
    let reports = Self.reports(showing: ["a", "b", "mine", "b", "c"], after: ["a", "b", "c"])

    // then
    #expect(reports.allSatisfy { $0 == nil })
  }

  @Test("A name the server set before one shown already is reported, and the newer one kept")
  func older() {
    // when
    let reports = Self.reports(showing: ["c", "a", "b", "c"], after: ["a", "b", "c"])

    // then
    #expect(reports[0] == nil)
    #expect(reports[1] == "the UI context shows a (version 1) after it showed c (version 3)")
    #expect(reports[2] == "the UI context shows b (version 2) after it showed c (version 3)")
    #expect(reports[3] == nil)
  }

  @Test("Notifications after the last one read are read, even once the backend forgot it")
  func readsOn() {
    // given: a track that read the first two renames
    let all = Self.stream(["a", "b", "c", "d"])
    var track = NameOrderTrack()
    track.read(Array(all.prefix(2)), of: Self.me)

    // when: the backend forgot the first three, and the stream goes on
    track.read(Array(all.dropFirst(3)), of: Self.me)

    // then
    #expect(track.version(of: "b", for: Self.group) == 2)
    #expect(track.version(of: "d", for: Self.group) == 4)
    #expect(track.version(of: "c", for: Self.group) == nil)
  }

  @Test("A context that was forgotten may show an older name again, and another is unaffected")
  func forgotten() {
    // given: both contexts showed the newest name
    var track = NameOrderTrack()
    track.read(Self.stream(["a", "b"]), of: Self.me)
    _ = track.show("b", of: Self.group, in: "UI")
    _ = track.show("b", of: Self.group, in: "sync")

    // when: the sync context lost its state and shows the older name its store held
    track.forget("sync")
    let sync = track.show("a", of: Self.group, in: "sync")
    let ui = track.show("a", of: Self.group, in: "UI")

    // then
    #expect(sync == nil)
    #expect(ui == "the UI context shows a (version 1) after it showed b (version 2)")
  }
}
