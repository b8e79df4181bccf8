import Models
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

  @Test(
    "A save accepts exactly the allowed status transitions and names the refused ones",
    arguments: allPairs)
  @MainActor
  func transition(_ transition: Transition) throws {
    // given
    let make = ModelFactory()
    let me = make.selfUser()
    let other = make.user()
    let stack = ModelStack.forTesting([
      me, other, make.connection(from: me, to: other, status: transition.from),
    ])
    let context = stack.ui.context
    try context.update(Connection.self, id: other.id) { $0.status = transition.to }

    // when
    let outcome = Result { () throws(SaveError) in try context.save() }

    // then
    let allowed = transition.from == transition.to || Self.allowed.contains(transition)
    switch outcome {
    case .success:
      #expect(allowed, "\(transition) was saved but must be refused")
      #expect(context.object(Connection.self, id: other.id)?.status == transition.to)
    case .failure(let error):
      #expect(!allowed, "\(transition) was refused: \(error)")
      #expect(
        error.failures == [
          ValidationFailure(
            object: ObjectReference(.connection, other.id),
            rule: .statusTransition(from: transition.from, to: transition.to))
        ])
      #expect(context.object(Connection.self, id: other.id)?.status == transition.from)
    }
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
