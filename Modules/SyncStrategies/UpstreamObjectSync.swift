import Foundation
import HTTPRequest
import JSON
import Models
import Seams
import Transport

/// A request the tracker chose, with what it pushes.
public struct UpstreamRequest: Sendable, CustomStringConvertible {
  /// The tracker's handle for this request; pass it back with the outcome.
  public let token: Int
  /// The request to send.
  public let request: HTTPRequest
  /// The change it pushes.
  public let item: SyncQueueSnapshot.Item

  /// Reads as the request line.
  public var description: String { "\(request)" }
}

/// How a request ended, as the tracker needs to know it.
public enum UpstreamOutcome: Sendable {
  /// The backend did it.
  case success(TransportResponse)
  /// It may work later (a 5xx, a 429, a network failure); the change stays pending.
  case temporary(String)
  /// It will not work as it is (a 4xx); the strategy decides.
  case permanent(TransportResponse?, String)

  /// The outcome of a send: its response, classed, or its error.
  public init(_ result: Result<TransportResponse, TransportError>) {
    switch result {
    case .success(let response):
      switch response.responseClass {
      case .success: self = .success(response)
      case .temporary, .expired: self = .temporary("status \(response.status)")
      case .permanent: self = .permanent(response, Self.reason(of: response))
      }
    case .failure(let error):
      switch error.responseClass {
      case .temporary, .expired: self = .temporary("\(error)")
      case .success, .permanent: self = .permanent(nil, "\(error)")
      }
    }
  }

  private static func reason(of response: TransportResponse) -> String {
    let label = (try? response.json())?["label"]?.stringValue
    return "status \(response.status)" + (label.map { " (\($0))" } ?? "")
  }
}

/// All the state of upstream sync, so that the strategies can stay stateless.
///
/// It knows which local changes are in flight (with a snapshot of what was sent), which wait to
/// retry, and which failed for good. Asked for the next request, it picks a change that is
/// neither in flight nor blocked, and has the entity's stateless strategy build the request.
///
/// Rules it keeps:
/// - Never two requests for the same key at once: an update in flight holds its keys; an insert
///   or a deletion in flight holds the whole object.
/// - On success, a key is cleared only if its value is still the one sent; a key changed while
///   in flight stays pending and is sent again.
/// - An object waits while an object it depends on has pending changes; a cycle of such waits is
///   reported in the queue and never sent, not spun on.
/// - A temporary failure keeps the change pending and backs off; a permanent one goes to the
///   strategy. A change is never dropped silently.
public final class UpstreamObjectSync: Sendable {
  struct InFlight: Sendable {
    let item: SyncQueueSnapshot.Item
    let strategy: Int
    let snapshot: (any ModelObject)?
  }

  struct State: Sendable {
    /// Changes whenever an outcome, a reconsideration or a retry could change the plan.
    var version = 0
    /// The ready changes of the last plan still to hand out (last first), and what the plan was
    /// made from.
    var cachedReady: [(SyncQueueSnapshot.Item, Int)] = []
    var cacheKey: (log: Int, state: Int)?
    var cacheValidUntil: Duration?
    var nextToken = 0
    var inFlight: [Int: InFlight] = [:]
    var inFlightByObject: [ObjectReference: Int] = [:]
    var retry: [ObjectReference: (attempts: Int, at: Duration)] = [:]
    var failed: [ObjectReference: String] = [:]
  }

  let strategies: [ErasedStrategy]
  /// How long a change waits after each temporary failure.
  public let retryPolicy: RetryPolicy
  private let state = Locked(State())
  private let random = Locked(SeededRandomNumberGenerator(seed: 0xC0FFEE))

  /// Creates a tracker over `strategies`, tried in order: earlier entities go first when both
  /// are ready.
  public init(strategies: [any UpstreamStrategy], retryPolicy: RetryPolicy = RetryPolicy()) {
    self.strategies = strategies.map { ErasedStrategy($0) }
    self.retryPolicy = retryPolicy
  }

  /// The standard strategies: self user, connections, conversations, messages.
  public static func standard(retryPolicy: RetryPolicy = RetryPolicy()) -> UpstreamObjectSync {
    UpstreamObjectSync(
      strategies: [
        SelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(), MessageStrategy(),
      ], retryPolicy: retryPolicy)
  }

  // MARK: - Choosing

  /// The next request to send, marking what it pushes as in flight; `nil` if nothing is ready.
  ///
  /// - Parameter now: The time on the engine's clock, for backoff.
  public func nextRequest(in context: ModelContext, now: Duration) -> UpstreamRequest? {
    while true {
      guard let (candidate, strategy) = nextReady(in: context, now: now) else { return nil }
      do {
        guard let (request, snapshot) = try strategies[strategy].prepare(candidate, context) else {
          strategies[strategy].settle(candidate, nil, context)
          continue
        }
        return state.withLock { state in
          let token = state.nextToken
          state.nextToken += 1
          state.inFlight[token] = InFlight(item: candidate, strategy: strategy, snapshot: snapshot)
          state.inFlightByObject[candidate.object] = token
          return UpstreamRequest(token: token, request: request, item: candidate)
        }
      } catch {
        state.withLock { state in
          state.failed[candidate.object] = "cannot build the request: \(error)"
          state.version += 1
        }
      }
    }
  }

  /// The next ready change, from the last plan while nothing it was made from changed.
  ///
  /// Otherwise a new plan is made. Handing changes out one by one from one plan keeps a drain
  /// linear in size.
  private func nextReady(in context: ModelContext, now: Duration) -> (SyncQueueSnapshot.Item, Int)?
  {
    enum Cached {
      case stale
      case fresh((SyncQueueSnapshot.Item, Int)?)
    }
    let cached = state.withLock { state -> Cached in
      guard let key = state.cacheKey, key.log == context.localChangeVersion,
        key.state == state.version, state.cacheValidUntil.map({ now < $0 }) ?? true
      else { return .stale }
      while let next = state.cachedReady.popLast() {
        if state.inFlightByObject[next.0.object] == nil { return .fresh(next) }
      }
      return .fresh(nil)
    }
    if case .fresh(let next) = cached { return next }
    let plan = self.plan(in: context, now: now)
    let logVersion = context.localChangeVersion
    return state.withLock { state in
      state.cachedReady = plan.ready.reversed()
      state.cacheKey = (logVersion, state.version)
      state.cacheValidUntil = state.retry.values.map(\.at).filter { $0 > now }.min()
      return state.cachedReady.popLast()
    }
  }

  /// Records how the request `token` ended and applies it to `context`; save the context after.
  public func complete(
    _ token: Int, with outcome: UpstreamOutcome, in context: ModelContext, now: Duration
  ) {
    guard
      let flight = state.withLock({ state -> InFlight? in
        guard let flight = state.inFlight.removeValue(forKey: token) else { return nil }
        state.inFlightByObject[flight.item.object] = nil
        state.version += 1
        return flight
      })
    else { return }
    let strategy = strategies[flight.strategy]
    switch outcome {
    case .success(let response):
      strategy.settle(flight.item, flight.snapshot, context)
      strategy.succeed(flight.item, flight.snapshot, response, context)
      state.withLock { state in
        state.retry[flight.item.object] = nil
        state.failed[flight.item.object] = nil
      }
    case .temporary:
      let unit = random.withLock { Double.random(in: 0..<1, using: &$0) }
      state.withLock { state in
        let attempts = (state.retry[flight.item.object]?.attempts ?? 0) + 1
        let wait = retryPolicy.delay(afterAttempt: attempts, unit: unit, retryAfter: nil)
        state.retry[flight.item.object] = (attempts, now + wait)
      }
    case .permanent(let response, let reason):
      let decision = strategy.fail(flight.item, flight.snapshot, response, reason, context)
      switch decision {
      case .markFailed(let text):
        state.withLock { $0.failed[flight.item.object] = text }
      case .revert(let text):
        strategy.settle(flight.item, nil, context)
        state.withLock { $0.failed[flight.item.object] = text }
      }
    }
  }

  /// Forgets failures and backoff of `objects`, because they changed again or the network is
  /// back: they are tried at the next request.
  public func reconsider(_ objects: Set<ObjectReference>) {
    state.withLock { state in
      for object in objects {
        state.failed[object] = nil
        state.retry[object] = nil
      }
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

  /// When the earliest change waiting to retry becomes ready, on the engine's clock.
  public var nextRetryTime: Duration? {
    state.withLock { $0.retry.values.map(\.at).min() }
  }

  /// How many requests are in flight.
  public var inFlightCount: Int { state.withLock { $0.inFlight.count } }

  /// The queue as it stands.
  public func queue(in context: ModelContext, now: Duration) -> SyncQueueSnapshot {
    var snapshot = plan(in: context, now: now).queue
    snapshot.inFlight = state.withLock { $0.inFlight.values.map(\.item) }.sorted()
    return snapshot
  }

  // MARK: - Planning

  struct Plan {
    var ready: [(SyncQueueSnapshot.Item, Int)] = []
    var queue = SyncQueueSnapshot()
  }

  private func plan(in context: ModelContext, now: Duration) -> Plan {
    let current = state.withLock { $0 }
    var candidates: [(item: SyncQueueSnapshot.Item, strategy: Int, order: Double)] = []
    for (index, strategy) in strategies.enumerated() {
      for candidate in strategy.candidates(context) {
        candidates.append((candidate.item, index, candidate.order))
      }
    }
    let pendingObjects = Set(candidates.map(\.item.object)).union(current.inFlightByObject.keys)
    var plan = Plan()
    var waits: [ObjectReference: [ObjectReference]] = [:]
    for (item, strategy, _) in candidates.sorted(by: Self.inLine) {
      if let reason = current.failed[item.object] {
        plan.queue.failed.append(.init(object: item.object, reason: reason))
        continue
      }
      // An update may go while another update of the object is in flight, for the keys that
      // request does not hold; anything else waits for the request to end.
      var keys = item.keys
      if let busy = current.inFlightByObject[item.object].flatMap({ current.inFlight[$0] }) {
        guard busy.item.kind == .update, item.kind == .update else { continue }
        keys = item.keys.filter { !busy.item.keys.contains($0) }
        if keys.isEmpty { continue }
      }
      if let retry = current.retry[item.object], retry.at > now {
        plan.queue.retrying.append(
          .init(item: item, failedAttempts: retry.attempts, retryIn: retry.at - now))
        continue
      }
      let dependencies = strategies[strategy].dependencies(item, context)
        .filter { $0 != item.object && pendingObjects.contains($0) }
      if !dependencies.isEmpty {
        waits[item.object] = dependencies
        plan.queue.blocked.append(.init(item: item, waitingFor: dependencies, isCycle: false))
        continue
      }
      let sendable = SyncQueueSnapshot.Item(object: item.object, kind: item.kind, keys: keys)
      plan.ready.append((sendable, strategy))
      plan.queue.pending.append(sendable)
    }
    let cycles = Self.cycleMembers(waits)
    plan.queue.blocked = plan.queue.blocked.map {
      .init(item: $0.item, waitingFor: $0.waitingFor, isCycle: cycles.contains($0.item.object))
    }
    for failure in current.failed
    where !plan.queue.failed.contains(where: { $0.object == failure.key }) {
      plan.queue.failed.append(.init(object: failure.key, reason: failure.value))
    }
    plan.queue.failed.sort { $0.object < $1.object }
    return plan
  }

  /// Whether `lhs` goes before `rhs`: by strategy, then the strategy's order, then id.
  private static func inLine(
    _ lhs: (item: SyncQueueSnapshot.Item, strategy: Int, order: Double),
    _ rhs: (item: SyncQueueSnapshot.Item, strategy: Int, order: Double)
  ) -> Bool {
    if lhs.strategy != rhs.strategy { return lhs.strategy < rhs.strategy }
    if lhs.order != rhs.order { return lhs.order < rhs.order }
    return lhs.item.object.id.precedes(rhs.item.object.id)
  }

  /// The objects that wait, directly or through others, for themselves: the members of
  /// dependency cycles.
  public static func cycleMembers(_ waits: [ObjectReference: [ObjectReference]]) -> Set<
    ObjectReference
  > {
    var onCycle: Set<ObjectReference> = []
    for start in waits.keys {
      var seen: Set<ObjectReference> = []
      var stack = waits[start] ?? []
      while let next = stack.popLast() {
        if next == start {
          onCycle.insert(start)
          break
        }
        guard seen.insert(next).inserted else { continue }
        stack += waits[next] ?? []
      }
    }
    return onCycle
  }
}
