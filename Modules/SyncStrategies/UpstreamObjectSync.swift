import Foundation
import Models
import Seams
import Transport

/// All the state of upstream sync, so that the strategies can stay stateless.
///
/// It knows which requests are in flight and exactly which keys each carries (with the values it
/// sent), and which changes wait to retry; what failed for good is kept in the change log, so it
/// survives with the store. Asked for the next request, it picks a change that is neither in
/// flight nor blocked, and has the entity's strategy build the call.
///
/// Rules it keeps:
/// - A key is free only when no request carrying it is in flight, so a newer value of a key is
///   sent only after the older request for that key is answered. Two requests may be in flight
///   for one object only for disjoint keys; an insert or a deletion holds the whole object.
/// - An outcome settles exactly its own request's keys: a key is cleared only if its value is
///   still the one that request sent. A key changed while in flight is sent again.
/// - A request may carry only some of the changed keys; the rest stay pending for the next one.
/// - An object waits while an object it needs does not exist on the backend yet, and goes after
///   the pending changes it must follow; a cycle of such waits is reported, never sent.
/// - A temporary failure keeps the change pending and backs off, honouring `Retry-After` for
///   every method. A permanent one goes to the strategy; a recorded failure blocks nothing but
///   the changes that need the failed object to exist, which wait on it visibly.
public final class UpstreamObjectSync: Sendable {
  struct State: Sendable {
    /// Changes whenever an outcome, a reconsideration or a retry could change the plan.
    var version = 0
    /// The ready work of the last plan still to hand out (last first), the rest of its line
    /// (entities not yet worked out), and whether the plan still stands.
    var ready: [Work] = []
    var lineup: Lineup?
    var plan = PlanStanding.none
    var nextToken = 0
    var owners: [RequestToken: Int] = [:]
    var retry: [ObjectReference: Backoff] = [:]
  }

  /// How long a change waits before its next attempt after temporary failures.
  struct Backoff: Sendable {
    var attempts: Int
    var at: Duration
  }

  let tracks: [any AnyEntityTrack]
  private let trackByEntity: [EntityName: Int]
  /// How long a change waits after each temporary failure.
  public let retryPolicy: RetryPolicy
  private let random: RandomSource
  let state = Locked(State())

  /// Creates a tracker over `strategies`, one per entity, tried in order: earlier entities go
  /// first when both are ready.
  ///
  /// - Parameters:
  ///   - strategies: One strategy per entity, in the order entities go when both are ready.
  ///   - retryPolicy: How long a change waits after each temporary failure.
  ///   - random: Where the jitter of backoffs comes from; the task's current source by default.
  public init(
    strategies: [any UpstreamStrategy], retryPolicy: RetryPolicy = RetryPolicy(),
    random: RandomSource = .current
  ) {
    func track<Strategy: UpstreamStrategy>(_ strategy: Strategy, _ position: Int)
      -> any AnyEntityTrack
    {
      EntityTrack(strategy, position: position)
    }
    let tracks = strategies.enumerated().map { track($1, $0) }
    self.tracks = tracks
    self.trackByEntity = Dictionary(
      tracks.enumerated().map { ($1.entityName, $0) }, uniquingKeysWith: { first, _ in first })
    self.retryPolicy = retryPolicy
    self.random = random
  }

  /// The standard strategies: self user, connections, conversations, messages.
  public static func standard(
    retryPolicy: RetryPolicy = RetryPolicy(), random: RandomSource = .current
  ) -> UpstreamObjectSync {
    UpstreamObjectSync(
      strategies: [
        SelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(), MessageStrategy(),
      ], retryPolicy: retryPolicy, random: random)
  }

  // MARK: - Choosing

  /// The next request to send, marking what it carries as in flight; `nil` if nothing is ready.
  ///
  /// - Parameters:
  ///   - context: The sync context the changes are read from.
  ///   - now: The time on the engine's clock, for backoff.
  public func nextRequest(in context: ModelContext, now: Duration) -> UpstreamRequest? {
    state.withLock { state in
      while true {
        refreshPlan(&state, in: context, now: now)
        guard let work = state.ready.popLast() else { return nil }
        let token = RequestToken(value: state.nextToken)
        switch tracks[work.track].prepare(work, token: token, in: context) {
        case .request(let request, let leftover):
          state.nextToken += 1
          state.owners[token] = work.track
          // Keys the request could not carry go in the next one: plan again to find them.
          if leftover { state.version += 1 }
          return request
        case .nothing:
          continue
        case .failed:
          state.version += 1
        }
      }
    }
  }

  /// Makes a new plan unless the last one still holds: nothing it was made from changed, and no
  /// backoff it counted on ended.
  ///
  /// A plan that holds but has handed out its ready work goes on to the next entities in line.
  /// Handing out one plan's ready work one by one keeps a drain linear in size.
  private func refreshPlan(_ state: inout State, in context: ModelContext, now: Duration) {
    let basis = PlanStanding.Basis(log: context.localChangeVersion, state: state.version)
    if !state.plan.stands(on: basis, now: now, readyWorkLeft: !state.ready.isEmpty) {
      state.lineup = lineUp(state, in: context, now: now)
      state.ready = []
      state.plan = .current(basis, until: state.retry.values.map(\.at).filter { $0 > now }.min())
    }
    if state.ready.isEmpty, var lineup = state.lineup {
      state.ready = nextReady(&lineup, in: context).reversed()
      state.lineup = lineup
    }
  }

  /// Records how the request `token` ended and applies it to `context`; save the context after.
  ///
  /// - Returns: What became of the change.
  @discardableResult
  public func complete(
    _ token: RequestToken, with outcome: UpstreamOutcome, in context: ModelContext, now: Duration
  ) -> UpstreamCompletion {
    state.withLock { state in
      guard let position = state.owners.removeValue(forKey: token) else {
        return .unknownToken(token)
      }
      let basis = PlanStanding.Basis(log: context.localChangeVersion, state: state.version)
      state.version += 1
      let completion = tracks[position].complete(token, outcome, in: context)
      // An answer that settles its request only frees work: what the plan found ready is still
      // ready, and goes first; the next plan finds what the answer freed. So a steady trickle of
      // answers does not survey the whole change log for each one. Any other answer can hold
      // back work the plan found ready (a backoff or a refusal covers the whole object), so the
      // plan is made again.
      if case .settled = completion {
        state.plan = state.plan.settled(
          from: basis,
          to: PlanStanding.Basis(log: context.localChangeVersion, state: state.version))
      }
      switch completion {
      case .settled(let object), .failed(let object, _), .reverted(let object, _):
        // The object's backoff is over once this answer came, unless another of its requests
        // was told to wait beyond now (a Retry-After); that one still waits its time.
        if let backoff = state.retry[object], backoff.at <= now { state.retry[object] = nil }
        return completion
      case .retrying(let object, _, let failure):
        let earlier = state.retry[object]
        let attempts = (earlier?.attempts ?? 0) + 1
        let wait = retryPolicy.delay(
          afterAttempt: attempts, unit: random.unitInterval(), retryAfter: failure.retryAfter)
        // Another request for the object may have been told to wait longer (a Retry-After);
        // this failure's shorter backoff does not cut that short.
        let at = max(now + wait, earlier?.at ?? now)
        state.retry[object] = Backoff(attempts: attempts, at: at)
        return .retrying(object, retryIn: at - now, failure)
      case .unknownToken:
        return completion
      }
    }
  }

  // MARK: - Failures and backoff

  /// Sends the refused change of `object` again; the caller saves the context and wakes the engine.
  ///
  /// Returns whether the object had a refused change.
  @discardableResult
  public func retryFailedChange(of object: ObjectReference, in context: ModelContext) -> Bool {
    change(object) { track, state in
      state.retry[object] = nil
      return track.retry(object.id, in: context)
    }
  }

  /// Gives up the refused change of `object`: an insert is dropped locally (with what refers to
  /// it), a deletion undone, and an update's keys go back to the backend's values.
  ///
  /// Where an earlier attempt may have been applied though its answer was lost, such a key stays
  /// pending with the backend's last known value, and such an insert becomes a deletion to push;
  /// a key another request of the object carries is left to that request's answer.
  ///
  /// The caller saves the context. Returns whether the object had a refused change.
  @discardableResult
  public func discardFailedChange(of object: ObjectReference, in context: ModelContext) -> Bool {
    change(object) { track, _ in track.discard(object.id, in: context) }
  }

  private func change(
    _ object: ObjectReference, _ body: (any AnyEntityTrack, inout State) -> Bool
  ) -> Bool {
    guard let position = trackByEntity[object.entity] else { return false }
    return state.withLock { state in
      state.version += 1
      return body(tracks[position], &state)
    }
  }

  /// Forgets the backoff of `objects`, because they changed again: they are tried at the next
  /// request.
  public func reconsider(_ objects: Set<ObjectReference>) {
    state.withLock { state in
      for object in objects { state.retry[object] = nil }
      state.version += 1
    }
  }

  /// Forgets every backoff, so waiting changes are tried at once (the network came back).
  public func retryNow() {
    state.withLock { state in
      state.retry = [:]
      state.version += 1
    }
  }

  /// When the earliest change still waiting to retry becomes ready, on the engine's clock.
  ///
  /// A backoff that has ended by `now` is not reported: its change is ready like any other, and
  /// the next outcome or save starts it. (Reporting it made an engine wake at once, again and
  /// again, while the retried request was in flight.)
  public func nextRetryTime(after now: Duration) -> Duration? {
    state.withLock { $0.retry.values.map(\.at).filter { $0 > now }.min() }
  }

  /// How many requests are in flight.
  public var inFlightCount: Int {
    state.withLock { _ in tracks.reduce(0) { $0 + $1.inFlightCount } }
  }

  /// The queue as it stands.
  public func queue(in context: ModelContext, now: Duration) -> SyncQueueSnapshot {
    state.withLock { state in makeQueue(state, in: context, now: now) }
  }
}
