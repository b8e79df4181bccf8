import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("Connection.Status", .tags(.models), .courier(timeBudget: .seconds(5)))
struct ConnectionStatusTests {
  /// Every change of status a save accepts; the suite checks all other pairs are refused.
  static let allowed: Set<Transition> = [
    Transition(.sent, .accepted), Transition(.sent, .cancelled), Transition(.sent, .blocked),
    Transition(.pending, .accepted), Transition(.pending, .ignored),
    Transition(.pending, .cancelled), Transition(.pending, .blocked),
    Transition(.accepted, .blocked), Transition(.accepted, .missingLegalholdConsent),
    Transition(.blocked, .accepted),
    Transition(.ignored, .accepted), Transition(.ignored, .blocked),
    Transition(.missingLegalholdConsent, .accepted),
    Transition(.missingLegalholdConsent, .blocked),
  ]

  static let allPairs: [Transition] = Connection.Status.allCases.flatMap { from in
    Connection.Status.allCases.map { Transition(from, $0) }
  }

  /// The allowed transitions, plus staying the same.
  static let savedPairs = allPairs.filter { $0.from == $0.to || allowed.contains($0) }
  /// Every other pair.
  static let refusedPairs = allPairs.filter { $0.from != $0.to && !allowed.contains($0) }

  /// A context holding a connection in `status`, and the other user's id.
  @MainActor
  static func context(withConnectionIn status: Connection.Status) -> (ModelContext, UUID) {
    let make = ModelFactory()
    let me = make.selfUser()
    let other = make.user()
    let stack = ModelStack.forTesting([
      me, other, make.connection(from: me, to: other, status: status),
    ])
    return (stack.ui.context, other.id)
  }

  @Test("A save accepts each allowed status transition", arguments: savedPairs)
  @MainActor
  func allowedTransition(_ transition: Transition) throws {
    // given
    let (context, other) = Self.context(withConnectionIn: transition.from)
    try context.update(Connection.self, id: other) { $0.status = transition.to }

    // when
    try context.save()

    // then
    #expect(context.object(Connection.self, id: other)?.status == transition.to)
  }

  @Test("A save refuses every other status transition and names it", arguments: refusedPairs)
  @MainActor
  func refusedTransition(_ transition: Transition) throws {
    // given
    let (context, other) = Self.context(withConnectionIn: transition.from)
    try context.update(Connection.self, id: other) { $0.status = transition.to }

    // when
    let error = #expect(throws: SaveError.self) { try context.save() }

    // then
    #expect(
      error?.failures == [
        ValidationFailure(
          object: ObjectReference(.connection, other),
          rule: .statusTransition(from: transition.from, to: transition.to))
      ])
    #expect(context.object(Connection.self, id: other)?.status == transition.from)
  }

  @Test(
    "It reads the backend's names and maps an unknown one to invalid",
    arguments: zip(
      ["accepted", "missing-legalhold-consent", "sent", "teleported", ""],
      [Connection.Status.accepted, .missingLegalholdConsent, .sent, .invalid, .invalid]))
  func backendValue(_ name: String, _ expected: Connection.Status) {
    // when
    let status = Connection.Status(backendValue: name)

    // then
    #expect(status == expected)
  }
}

/// A change of connection status, as one row of the transition table.
struct Transition: Hashable, Sendable, CustomTestStringConvertible {
  let from: Connection.Status
  let to: Connection.Status

  init(_ from: Connection.Status, _ to: Connection.Status) {
    self.from = from
    self.to = to
  }

  var testDescription: String { "\(from.rawValue) → \(to.rawValue)" }
}
