import SyncStrategies

/// How a simulation runs: how long each schedule is, what may go wrong, and where the client
/// keeps its state.
public struct SimulationOptions: Sendable {
  /// How many steps a generated schedule has before the final drain.
  public var steps: Int
  /// Whether the backend injects faults and the network goes away.
  public var faults: Bool
  /// Whether the app is killed and restarted.
  public var restarts: Bool
  /// Whether the backend may refuse a request for good (a `400`, with faults on), and the app
  /// then retry or give up its refused changes.
  ///
  /// Seeds drawn without refusals (before they existed) replay with this off.
  public var refusals: Bool
  /// Whether other members may remove the self user from a group.
  ///
  /// Seeds drawn before such removals existed replay with this off.
  public var removals: Bool
  /// Whether other members may add the self user back to a group they left or were removed
  /// from.
  ///
  /// Seeds drawn before such additions existed replay with this off.
  public var rejoins: Bool
  /// Whether contacts may rename themselves, connected with the self user or not.
  ///
  /// Seeds drawn before such renames existed replay with this off.
  public var contactRenames: Bool
  /// Whether the self user may rename themselves on another of their devices while this one
  /// edits too.
  ///
  /// Seeds drawn before such renames existed replay with this off.
  public var otherDevice: Bool
  /// Whether, with faults on, the backend may apply a request and hold its answer, so that
  /// answers overtake each other on their way back.
  ///
  /// Seeds drawn before held answers were on by default replay with this off.
  public var heldAnswers: Bool
  /// Whether the backend may forget its older notifications, so that the app must catch up
  /// with what it holds.
  ///
  /// Seeds drawn before such expiries existed replay with this off.
  public var expiries: Bool
  /// Whether, with faults on, the backend may answer a request 401, as when the user's session
  /// ended, so that the engine pauses until the app signs the user in again (the next step
  /// that brings the network back).
  ///
  /// Drawn in place of some pulls; seeds drawn before such sign-outs existed replay with this
  /// off.
  public var signOuts: Bool
  /// Whether connections may move on past requests and acceptances: the self user blocks or
  /// unblocks a contact, ignores a request or accepts one they ignored, cancels a request they
  /// sent; a contact withdraws the request they sent.
  ///
  /// Drawn in place of some requests to connect; seeds drawn before such changes existed replay
  /// with this off.
  public var connectionChanges: Bool
  /// Whether a member of a group may add a contact to it, as well as remove one.
  ///
  /// Drawn in place of some removals; seeds drawn before such additions existed replay with
  /// this off.
  public var memberAdditions: Bool
  /// Whether a contact may delete the latest message they wrote in a conversation.
  ///
  /// Drawn in place of some posts by contacts; seeds drawn before such deletions existed replay
  /// with this off.
  public var remoteDeletions: Bool
  /// Whether the self user may delete, on another of their devices, the latest message they
  /// wrote in a conversation; needs ``otherDevice``.
  ///
  /// Drawn in place of some renames on another device; seeds drawn before such deletions
  /// existed replay with this off.
  public var deletionsElsewhere: Bool
  /// Whether the store may refuse the app's next saves for a while (a full disk, a database
  /// another process holds).
  ///
  /// Drawn in place of half the expiries; seeds drawn before such refusals existed replay with
  /// this off.
  public var storeRefusals: Bool
  /// Whether the client keeps its state in a SQLite file (else an in-memory store that
  /// outlives each app instance).
  public var durableStore: Bool
  /// How many requests the client sends at once.
  public var maxConcurrentRequests: Int
  /// How many requests the client's engine lets out at once; the engine's default (more than
  /// the transport sends) when `nil`.
  ///
  /// A limit below ``maxConcurrentRequests`` makes the engine hold work back itself, and plan
  /// again as answers come, rather than leave the waiting to the transport.
  public var maximumRequestsInFlight: Int?
  /// How many notifications, connections or conversations the client asks for in one page
  /// (1…500, as `DownstreamSync` takes it; 100 by default).
  ///
  /// Small pages split pulls and catch-ups into many requests, between which answers, news and
  /// faults can land. The schedule drawn does not depend on it.
  public var pageSize = 100
  /// The strategies of the client under test; the standard four when `nil`.
  public var strategies: [any UpstreamStrategy]?
  /// How many requests a run may send before it counts as a client that never stops
  /// sending; by default 50 per step plus 500.
  public var requestLimit: Int?
  /// Whether every event is printed as it happens, for following a run that hangs or fails.
  public var trace = false
  /// A defect planted in the client's link, to show that a check catches what it breaks.
  package var flaw: DeviceFlaw?

  /// Creates options; by default 40 steps with faults, held answers, refusals, removals,
  /// rejoins, contact renames, renames on another device, expiries, sign-outs, connection
  /// changes, members added by others, messages deleted by others or by the self user on
  /// another device, saves the store refuses, and restarts on a SQLite store.
  public init(
    steps: Int = 40, faults: Bool = true, restarts: Bool = true, refusals: Bool = true,
    removals: Bool = true, rejoins: Bool = true, contactRenames: Bool = true,
    otherDevice: Bool = true, heldAnswers: Bool = true, expiries: Bool = true,
    signOuts: Bool = true, connectionChanges: Bool = true, memberAdditions: Bool = true,
    remoteDeletions: Bool = true, deletionsElsewhere: Bool = true, storeRefusals: Bool = true,
    durableStore: Bool = true,
    maxConcurrentRequests: Int = 3, strategies: [any UpstreamStrategy]? = nil
  ) {
    self.steps = steps
    self.faults = faults
    self.restarts = restarts
    self.refusals = refusals
    self.removals = removals
    self.rejoins = rejoins
    self.contactRenames = contactRenames
    self.otherDevice = otherDevice
    self.heldAnswers = heldAnswers
    self.expiries = expiries
    self.signOuts = signOuts
    self.connectionChanges = connectionChanges
    self.memberAdditions = memberAdditions
    self.remoteDeletions = remoteDeletions
    self.deletionsElsewhere = deletionsElsewhere
    self.storeRefusals = storeRefusals
    self.durableStore = durableStore
    self.maxConcurrentRequests = maxConcurrentRequests
    self.strategies = strategies
  }

  /// The request limit in force.
  var maxRequests: Int { requestLimit ?? 50 * steps + 500 }

  /// The faults a schedule draws among: every kind, or every kind but refusals; held answers
  /// and sign-outs have rolls of their own, so that the draws of older seeds stay as they were.
  var faultKinds: [SimulatedFault] {
    SimulatedFault.allCases.filter {
      $0 != .heldAnswer && $0 != .signedOut && (refusals || $0 != .refusal)
    }
  }
}
