import Foundation

/// What simulated runs covered: seeds, steps, faults by kind, restarts, requests, virtual time.
public struct SimulationFigures: Sendable, Hashable {
  /// Seeds run.
  public var seeds = 0
  /// Steps carried out.
  public var steps = 0
  /// Faults injected, by kind.
  public var faults: [SimulatedFault: Int] = [:]
  /// Times the network went away.
  public var offlineSpells = 0
  /// Times the app was killed and started again.
  public var restarts = 0
  /// Held requests the backend refused after the user went on editing.
  public var parkedRefused = 0
  /// Times another member removed the self user from a group.
  public var removedFromGroups = 0
  /// Times another member added the self user back to a group.
  public var rejoinedGroups = 0
  /// Times a contact renamed themselves.
  public var contactRenames = 0
  /// Times the self user renamed themselves on another device.
  public var renamesElsewhere = 0
  /// Times the backend forgot its older notifications.
  public var notificationExpiries = 0
  /// Saves the store was told to refuse, of either context.
  public var savesRefused = 0
  /// Times the engine paused for the app to sign its user in again, after a 401.
  public var signInWaits = 0
  /// Connections the self user moved on (blocked, unblocked, ignored, accepted after ignoring,
  /// cancelled), counted when the app saved the change.
  public var connectionChanges = 0
  /// Requests to connect a contact withdrew.
  public var withdrawnRequests = 0
  /// Contacts another member added to a group.
  public var membersAddedByOthers = 0
  /// Messages their senders, other users, deleted.
  public var messagesDeletedByOthers = 0
  /// Messages of the self user they deleted on another device.
  public var deletionsElsewhere = 0
  /// Refused changes the app sent again.
  public var refusalsRetried = 0
  /// Refused changes the app gave up.
  public var refusalsGivenUp = 0
  /// Requests the backend received.
  public var requests = 0
  /// Virtual time covered.
  public var virtualTime: Duration = .zero
  /// How often a check was waived, by reason (an older name shown while the app sends it
  /// again, after it gave up a refused change); counted so that none grows unseen.
  public var exemptions: [String: Int] = [:]

  /// Creates empty figures.
  public init() {}

  /// Adds `other`'s counts to these.
  public mutating func add(_ other: SimulationFigures) {
    seeds += other.seeds
    steps += other.steps
    for (fault, count) in other.faults { faults[fault, default: 0] += count }
    offlineSpells += other.offlineSpells
    restarts += other.restarts
    parkedRefused += other.parkedRefused
    removedFromGroups += other.removedFromGroups
    rejoinedGroups += other.rejoinedGroups
    contactRenames += other.contactRenames
    renamesElsewhere += other.renamesElsewhere
    notificationExpiries += other.notificationExpiries
    savesRefused += other.savesRefused
    signInWaits += other.signInWaits
    connectionChanges += other.connectionChanges
    withdrawnRequests += other.withdrawnRequests
    membersAddedByOthers += other.membersAddedByOthers
    messagesDeletedByOthers += other.messagesDeletedByOthers
    deletionsElsewhere += other.deletionsElsewhere
    refusalsRetried += other.refusalsRetried
    refusalsGivenUp += other.refusalsGivenUp
    requests += other.requests
    virtualTime += other.virtualTime
    exemptions.merge(other.exemptions, uniquingKeysWith: +)
  }

  /// The figures in a few lines.
  public var summary: String {
    let faultList = SimulatedFault.allCases.map { "\($0) \(faults[$0] ?? 0)" }
      .joined(separator: ", ")
    let hours = virtualTime / .seconds(3_600)
    return """
      seeds \(seeds), steps \(steps), requests \(requests), restarts \(restarts), \
      offline spells \(offlineSpells), virtual time \(String(format: "%.1f", hours)) h
      faults: \(faultList)
      held requests refused \(parkedRefused); refused changes retried \(refusalsRetried), \
      given up \(refusalsGivenUp); removed from a group \(removedFromGroups) times, added back \
      \(rejoinedGroups) times; contacts renamed \(contactRenames) times, the self user on \
      another device \(renamesElsewhere) times; notifications forgotten \(notificationExpiries) \
      times; saves refused \(savesRefused); waits for sign-in \(signInWaits); connections moved on \(connectionChanges) times, \
      requests withdrawn \(withdrawnRequests); members added by others \(membersAddedByOthers), \
      messages deleted by others \(messagesDeletedByOthers), by the self user on another device \
      \(deletionsElsewhere)
      exemptions granted: \(exemptionList)
      """
  }

  /// The exemptions by reason, in a stable order.
  private var exemptionList: String {
    guard !exemptions.isEmpty else { return "none" }
    return exemptions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
      .joined(separator: ", ")
  }
}

/// One seed's run: its schedule, what it broke if anything, and what it covered.
public struct SimulationReport: Sendable {
  /// The seed.
  public let seed: UInt64
  /// The steps that ran.
  public let schedule: [SimulationStep]
  /// The first rule broken, if any.
  public let violation: InvariantViolation?
  /// The last 30 events before the end or the violation.
  public let lastEvents: [String]
  /// Every request the backend received, in order, as `#3 PUT /self → 200`.
  public let requests: [String]
  /// What the run covered.
  public let figures: SimulationFigures
}
