import Foundation
import Models
import Seams
import TestSupport
import Testing

@testable import Simulation

@Suite("LastEdits", .tags(.simulation), .timeBudget(.seconds(5)))
struct LastEditsTests {
  static let group = UUID(1)
  static let otherGroup = UUID(2)
  static let ann = UUID(3)

  /// Every kind of key, each with the user's value and a value of someone else's.
  static let keys: [LastEdits.Key] = [
    .selfName, .accent, .groupName(group), .member(ann, group: group), .connection(ann),
  ]

  @Test(
    "An edit that is neither here nor on the server is reported, with the key and both values",
    arguments: keys)
  func reportsLostEdit(key: LastEdits.Key) {
    // given
    var edits = LastEdits()
    edits.saved("mine", for: key)

    // when
    let lost = edits.lost(here: { _ in "old" }, there: { _ in "old" })

    // then
    #expect(lost == "the user's last \(key), mine, is neither here (old) nor on the server (old)")
  }

  @Test(
    "A save back to the value a change is measured from is a new change, with no value followed"
  )
  func savedUnfollowedCountsAChange() {
    // given
    var edits = LastEdits()
    let key = LastEdits.Key.member(Self.ann, group: Self.group)
    edits.saved("in", for: key)

    // when
    edits.savedUnfollowed(key)

    // then
    #expect(edits.editCounts[key] == 2)
    #expect(edits.lost(here: { _ in "out" }, there: { _ in "out" }) == nil)
  }

  @Test("An edit still here, or with its object gone here, or skipped, is not reported")
  func keepsWhatIsHere() {
    // given
    var edits = LastEdits()
    edits.saved("mine", for: .selfName)
    edits.saved("mine", for: .groupName(Self.group))
    edits.saved("mine", for: .connection(Self.ann))

    // when
    let lost = edits.lost(
      here: { key in
        switch key {
        case .selfName: "mine"
        case .groupName: "old"
        default: nil
        }
      },
      there: { _ in "old" }, skipping: { $0 == .groupName(Self.group) })

    // then
    #expect(lost == nil)
    #expect(edits.values.count == 3)
  }

  @Test(
    "An edit the server is seen holding is forgotten, so a later change there is not held against it"
  )
  func forgetsWhatTheServerHolds() {
    // given
    var edits = LastEdits()
    edits.saved("mine", for: .selfName)
    _ = edits.lost(here: { _ in "mine" }, there: { _ in "mine" })

    // when
    let lost = edits.lost(here: { _ in "theirs" }, there: { _ in "theirs" })

    // then
    #expect(lost == nil)
    #expect(edits.values.isEmpty)
  }

  @Test(
    "Forgetting an object's keys forgets only that object's; a user's are the self user's",
    arguments: zip(
      [ObjectReference(.user, UUID(9)), ObjectReference(.conversation, group)],
      [
        [LastEdits.Key.groupName(group), .member(ann, group: group), .groupName(otherGroup)],
        [.selfName, .accent, .groupName(otherGroup)],
      ]))
  func forgetsOneObject(object: ObjectReference, left: [LastEdits.Key]) {
    // given
    var edits = LastEdits()
    for key in [
      LastEdits.Key.selfName, .accent, .groupName(Self.group), .member(Self.ann, group: Self.group),
      .groupName(Self.otherGroup),
    ] {
      edits.saved("mine", for: key)
    }

    // when
    edits.forget(keysOf: object)

    // then
    #expect(Set(edits.values.keys) == Set(left))
  }
}
