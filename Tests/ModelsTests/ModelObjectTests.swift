import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("ModelObject", .tags(.models), .courier(timeBudget: .seconds(5)))
struct ModelObjectTests {
  /// Members by name, for readable tables.
  static let ids: [String: UUID] = Dictionary(
    uniqueKeysWithValues: ["Ann", "Bob", "Cy", "Dee"].enumerated().compactMap { index, name in
      UUID(uuidString: "00000000-0000-0000-0000-00000000000\(index + 2)").map { (name, $0) }
    })

  static func group(_ members: Set<String>) -> Conversation {
    Conversation(
      id: UUID(uuidString: "00000000-0000-0000-0000-000000000001") ?? UUID(), kind: .group,
      name: "Lunch", creatorID: ids["Ann"] ?? UUID(),
      participantIDs: Set(members.compactMap { ids[$0] }),
      lastEventTime: Date(timeIntervalSince1970: 0))
  }

  struct YieldCase: Sendable, CustomTestStringConvertible {
    let title: String
    let current: Set<String>
    /// The members before and after the change given up.
    let before: Set<String>
    let after: Set<String>
    let incoming: Set<String>
    let touched: Set<String>
    let expected: Set<String>
    var testDescription: String { title }
  }

  @Test(
    "Giving up a change of members takes the incoming value only of the members it changed, where they still stand and the user did not touch them",
    arguments: [
      YieldCase(
        title: "an addition another member undid is taken out",
        current: ["Ann", "Bob"], before: ["Ann"], after: ["Ann", "Bob"], incoming: ["Ann"],
        touched: [], expected: ["Ann"]),
      YieldCase(
        title: "a removal another member undid is taken back",
        current: ["Ann"], before: ["Ann", "Bob"], after: ["Ann"], incoming: ["Ann", "Bob"],
        touched: [], expected: ["Ann", "Bob"]),
      YieldCase(
        title: "a member the user added since, beside the change, stays",
        current: ["Ann", "Bob", "Cy"], before: ["Ann"], after: ["Ann", "Bob"], incoming: ["Ann"],
        touched: ["Cy"], expected: ["Ann", "Cy"]),
      YieldCase(
        title: "a member the change added and the user touched since stays as the user left them",
        current: ["Ann", "Bob"], before: ["Ann"], after: ["Ann", "Bob"], incoming: ["Ann"],
        touched: ["Bob"], expected: ["Ann", "Bob"]),
      YieldCase(
        title: "a member another request added, which this change did not carry, stays",
        current: ["Ann", "Dee"], before: ["Ann", "Bob"], after: ["Ann"], incoming: ["Ann", "Bob"],
        touched: [], expected: ["Ann", "Bob", "Dee"]),
      YieldCase(
        title: "a member the change added that is gone here already stays gone",
        current: ["Ann"], before: ["Ann"], after: ["Ann", "Bob"], incoming: ["Ann", "Bob"],
        touched: [], expected: ["Ann"]),
    ])
  func yieldChange(_ example: YieldCase) {
    // given
    var current = Self.group(example.current)
    let touched = Set(example.touched.compactMap { Self.ids[$0] }.map(SetElement.init))

    // when
    current.yieldChange(
      at: .participantIDs, from: Self.group(example.before), to: Self.group(example.after),
      incoming: Self.group(example.incoming)
    ) { !touched.contains($0) }

    // then
    #expect(current.participantIDs == Self.group(example.expected).participantIDs)
  }

  @Test("Giving up a change of a key of one value leaves it as it is")
  func yieldChangeOfName() {
    // given
    var current = Self.group(["Ann"])
    var renamed = current
    renamed.name = "Tea"
    var incoming = current
    incoming.name = "Brunch"

    // when
    current.yieldChange(at: .name, from: Self.group(["Ann"]), to: renamed, incoming: incoming) {
      _ in true
    }

    // then
    #expect(current.name == "Lunch")
  }
}
