import CourierAPI
import Foundation
import HTTPRequest
import JSON
import Seams
import Transport

/// An in-memory fake of the Courier backend: the one place that knows how the server behaves.
///
/// Serve it in-process with ``transport`` or beneath a real `URLSession` with
/// ``makeURLSession()``. Set up its state with the `insert…`/`…Remotely` calls, which emit the
/// same events a real change would. Read what it received in ``journal``, and make it
/// misbehave with ``addFault(_:)`` and ``network``. The endpoints are listed in
/// `FakeBackend+Routing.swift`.
///
/// A fresh fake costs microseconds; make one per test.
public final class FakeBackend: Sendable {
  /// A request held until a caller lets it go, with the continuation that resumes it.
  private struct Parked {
    let request: FakeRequest
    /// What resumes the request; `nil` once it was cancelled and waits for its journal entry.
    var continuation: CheckedContinuation<Void, Never>?
    /// Whether the request was applied and only its answer is held.
    let applied: Bool
  }

  private struct Control {
    var journal: [JournalEntry] = []
    var rules: [(rule: FaultRule, used: Int)] = []
    var network: NetworkCondition = .online
    /// The requests held now, by journal index, each with what resumes it.
    var parked: [Int: Parked] = [:]
    /// How each parked request that stopped waiting without being released ends.
    var parkEnds: [Int: ParkEnd] = [:]
    var parkWaiters: [CheckedContinuation<Void, Never>] = []
    var nextIndex = 0
  }

  let state: Locked<ServerState>
  private let control = Locked(Control())
  /// The clock delays and offline expiry are measured on.
  public let time: any TimeSource
  /// Called with every request no endpoint matched; by default it logs an error (strict mode).
  public let onUnmatched: (@Sendable (JournalEntry) -> Void)?

  /// Creates an empty backend.
  ///
  /// - Parameters:
  ///   - uuids: Where the ids of server-made objects come from; the task's current source by
  ///     default, so a test's deterministic UUIDs make the server's ids reproducible too.
  ///   - epoch: The server time of its first change; each change is one second later.
  ///   - time: The clock for delays and offline expiry.
  ///   - onUnmatched: Called for every request that matched no endpoint. By default it logs an
  ///     error to the log sink in force where the fake was made, so a test under
  ///     `.failsOnLoggedErrors` (or `.courier`) fails, whichever thread served the request (strict
  ///     mode). Pass `nil` to answer unmatched requests with 404 and nothing else, or a closure
  ///     such as `{ Issue.record("unmatched: \($0)") }`.
  public init(
    uuids: UUIDSource = .current, epoch: Date = Date(timeIntervalSince1970: 1_800_000_000),
    time: any TimeSource = SystemTimeSource(),
    onUnmatched: (@Sendable (JournalEntry) -> Void)? = FakeBackend.logUnmatched()
  ) {
    self.state = Locked(ServerState(uuids: uuids, epoch: epoch))
    self.time = time
    self.onUnmatched = onUnmatched
  }

  /// A new fake holding what this one holds now: users, connections, conversations, messages
  /// and notifications, with the same server clock; its journal is empty, it has no faults and
  /// is online.
  ///
  /// For tests that start from one prepared world many times: preparing it once and copying it
  /// costs a copy of the state's collections, which share their storage until either fake
  /// changes them. Neither fake sees the other's later changes.
  ///
  /// - Parameters:
  ///   - uuids: Where the ids of objects the copy makes from now on come from.
  ///   - time: The copy's clock for delays and offline expiry.
  ///   - onUnmatched: Called for every request the copy matches to no endpoint; strict by
  ///     default, as for a new fake.
  public func copy(
    uuids: UUIDSource = .current, time: any TimeSource = SystemTimeSource(),
    onUnmatched: (@Sendable (JournalEntry) -> Void)? = FakeBackend.logUnmatched()
  ) -> FakeBackend {
    var copied = state.withLock { $0 }
    copied.uuids = uuids
    return FakeBackend(state: copied, time: time, onUnmatched: onUnmatched)
  }

  private init(
    state: ServerState, time: any TimeSource, onUnmatched: (@Sendable (JournalEntry) -> Void)?
  ) {
    self.state = Locked(state)
    self.time = time
    self.onUnmatched = onUnmatched
  }

  /// The fake's default strict mode: logs each unmatched request as an error to `sink`.
  ///
  /// The sink is the one in force where this is called (a test's recorder when the fake is made
  /// inside a test), so requests served on other threads, such as a `URLSession`'s or a loopback
  /// server's, still reach the test's log.
  public static func logUnmatched(to sink: any LogSink = CourierLogger.sink)
    -> @Sendable (JournalEntry)
    -> Void
  {
    { entry in
      sink.receive(
        LogEntry(
          level: .error, category: "fake-backend",
          message: "matched no endpoint: \(entry)"))
    }
  }

  // MARK: - Serving

  /// What the fake does with one request: a response, or a transport error.
  public func handle(_ request: FakeRequest, expiry: Duration = TransportDefaults.expiry) async
    -> Result<TransportResponse, TransportError>
  {
    await respond(to: request, expiry: expiry).outcome
  }

  /// Answers `request` as ``handle(_:expiry:)`` does, and says which journal entry it made.
  func respond(to request: FakeRequest, expiry: Duration) async -> (
    outcome: Result<TransportResponse, TransportError>, index: Int
  ) {
    let (index, mode, fault) = control.withLock { control in
      defer { control.nextIndex += 1 }
      // Offline, a request never reaches the server, so it does not use up a fault rule's step.
      let fault =
        control.network == .online ? Self.nextFault(for: request, in: &control) : nil
      return (control.nextIndex, control.network, fault)
    }
    let outcome = await serve(request, index: index, mode: mode, fault: fault, expiry: expiry)
    return (outcome, index)
  }

  /// Answers request number `index` under the offline mode and the fault that were in force
  /// when it arrived, and records it in the journal.
  private func serve(
    _ request: FakeRequest, index: Int, mode: NetworkCondition, fault: Fault?, expiry: Duration
  ) async -> Result<TransportResponse, TransportError> {
    let fault = fault.flatMap { refusesAnsweredRepeat($0, request) ? nil : $0 }
    // A request for a known route is matched even when its body or query is refused with 400.
    let route =
      switch request.endpoint {
      case .success(let endpoint): endpoint.route
      case .failure(let error): error.route
      }
    switch mode {
    case .online: break
    case .offline:
      record(index, request, route: route, status: nil, fault: fault)
      return .failure(.network(.offline))
    case .unresponsive:
      record(index, request, route: route, status: nil, fault: fault)
      do {
        try await time.sleep(for: expiry)
      } catch {
        return .failure(.cancelled)
      }
      return .failure(.expired(after: expiry))
    }
    switch fault {
    case .status(let status, let retryAfter)?:
      record(index, request, route: route, status: status, fault: fault)
      let response = Self.error(status, label: "injected-fault", message: "fault rule")
      guard let retryAfter else { return .success(response) }
      var headers = response.headers
      headers["Retry-After"] = String(retryAfter)
      return .success(TransportResponse(status: status, headers: headers, body: response.body))
    case .network(let failure)?:
      record(index, request, route: route, status: nil, fault: fault)
      return .failure(.network(failure))
    case .delay(let duration)?:
      do {
        try await time.sleep(for: duration)
      } catch {
        record(index, request, route: route, status: nil, fault: fault)
        return .failure(.cancelled)
      }
    case .park?:
      switch await park(index, request) {
      case .released: break
      case .cancelled:
        record(index, request, route: route, status: nil, fault: fault)
        unlistCancelledPark(index)
        return .failure(.cancelled)
      case .dropped:
        record(index, request, route: route, status: nil, fault: fault)
        return .failure(.network(.connectionLost))
      case .refused(let status):
        record(index, request, route: route, status: status, fault: fault)
        return .success(
          Self.error(status, label: "injected-fault", message: "refused while parked"))
      }
    case .holdAnswer?, .loseResponse?, .malformedBody?, nil:
      break
    }
    let response = state.withLock { Self.route(request, in: &$0) }
    switch fault {
    case .holdAnswer?:
      // The server answered; the answer is what waits, on its way back.
      record(index, request, route: route, status: response.status, fault: fault)
      switch await park(index, request, applied: true) {
      case .released, .refused: return .success(response)
      case .cancelled:
        unlistCancelledPark(index)
        return .failure(.cancelled)
      case .dropped: return .failure(.network(.connectionLost))
      }
    case .loseResponse?:
      // The server answered; the answer is what is lost, on its way back.
      record(index, request, route: route, status: response.status, fault: fault)
      return .failure(.network(.connectionLost))
    case .malformedBody?:
      record(index, request, route: route, status: response.status, fault: fault)
      return .success(
        TransportResponse(
          status: response.status, headers: ["Content-Type": "application/json"],
          body: Data("{\"truncated\": ".utf8)))
    default:
      record(index, request, route: route, status: response.status, fault: fault)
      return .success(response)
    }
  }

  /// Whether `fault` would refuse for good a request that repeats an answered idempotency key.
  ///
  /// A server answers such a repeat with its first answer, so the fault is not injected, as a
  /// parked one is not refused (``refuseParkedRequest(_:status:)``). A server error, a `429` or
  /// a `401` may still come first.
  private func refusesAnsweredRepeat(_ fault: Fault, _ request: FakeRequest) -> Bool {
    guard case .status(let status, _) = fault, ResponseClass(status: status) == .permanent,
      let key = request.headers[Endpoint.idempotencyKeyHeader.lowercased()]
    else { return false }
    return hasAnswered(idempotencyKey: key)
  }

  /// A transport that serves this fake in-process, with no URL session at all.
  public var transport: FakeTransport { FakeTransport(backend: self) }

  private func record(
    _ index: Int, _ request: FakeRequest, route: Route?, status: Int?, fault: Fault?
  ) {
    let entry = JournalEntry(
      index: index, request: request, route: route, status: status, fault: fault)
    control.withLock { control in
      // Requests finish out of order (a parked one later than those after it); keep the journal
      // in arrival order by inserting from the end, which is almost always an append.
      var position = control.journal.endIndex
      while position > 0 && control.journal[position - 1].index > entry.index { position -= 1 }
      control.journal.insert(entry, at: position)
    }
    if !entry.matched { onUnmatched?(entry) }
  }

  // MARK: - Faults

  /// Adds a fault rule; rules are tried in the order they were added, and the first that has a
  /// step left for a matching request applies.
  public func addFault(_ rule: FaultRule) {
    control.withLock { $0.rules.append((rule, 0)) }
  }

  /// Removes every fault rule.
  public func removeFaults() {
    control.withLock { $0.rules = [] }
  }

  /// How the fake behaves as if the network were down.
  public var network: NetworkCondition {
    get { control.withLock { $0.network } }
    set { control.withLock { $0.network = newValue } }
  }

  private static func nextFault(for request: FakeRequest, in control: inout Control) -> Fault? {
    for index in control.rules.indices where control.rules[index].rule.matcher.matches(request) {
      let (rule, used) = control.rules[index]
      if used < rule.steps.count {
        control.rules[index].used += 1
        return rule.steps[used]
      }
      if rule.repeatsLastStep, let last = rule.steps.last { return last }
    }
    return nil
  }

  // MARK: - Parked requests

  /// The journal indexes of the requests parked now, oldest first.
  ///
  /// A parked request whose task is cancelled stays listed until its journal entry is written,
  /// so once the list is empty the journal shows how every parked request ended.
  public var parkedRequests: [Int] {
    control.withLock { $0.parked.keys.sorted() }
  }

  /// Waits, without blocking, until at least `count` requests are parked.
  public func waitForParkedRequests(_ count: Int = 1) async {
    while control.withLock({ $0.parked.count }) < count {
      await withCheckedContinuation { continuation in
        let ready = control.withLock { control in
          if control.parked.count >= count { return true }
          control.parkWaiters.append(continuation)
          return false
        }
        if ready { continuation.resume() }
      }
    }
  }

  /// Lets the parked request with journal index `index` go on; returns whether one was parked.
  @discardableResult
  public func releaseParkedRequest(_ index: Int) -> Bool {
    unpark(index, ending: .released)
  }

  /// Lets every parked request go on, oldest first.
  public func releaseAllParkedRequests() {
    for index in parkedRequests { releaseParkedRequest(index) }
  }

  /// The request parked under journal index `index`, or `nil` if none is parked there.
  public func parkedRequest(_ index: Int) -> FakeRequest? {
    control.withLock { $0.parked[index]?.request }
  }

  /// How a parked request stopped waiting.
  private enum ParkEnd {
    case released
    case cancelled
    case dropped
    case refused(status: Int)
  }

  /// Holds the request `index` until it is released, dropped or refused, or its task is
  /// cancelled.
  ///
  /// A cancelled request stays on the parked list until its journal entry is written and the
  /// caller calls `unlistCancelledPark(_:)`, so whoever waits for the list to empty (a client
  /// whose cancelled request the server notices late) finds the request in the journal.
  private func park(_ index: Int, _ request: FakeRequest, applied: Bool = false) async -> ParkEnd {
    let ended = Locked<ParkEnd?>(nil)
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (waiters, cancelled) = control.withLock { control in
          if Task.isCancelled { return ([CheckedContinuation<Void, Never>](), true) }
          control.parked[index] = Parked(
            request: request, continuation: continuation, applied: applied)
          defer { control.parkWaiters = [] }
          return (control.parkWaiters, false)
        }
        for waiter in waiters { waiter.resume() }
        if cancelled {
          ended.withLock { $0 = .cancelled }
          continuation.resume()
        }
      }
    } onCancel: {
      let continuation = control.withLock { control in
        defer { control.parked[index]?.continuation = nil }
        return control.parked[index]?.continuation
      }
      if let continuation {
        ended.withLock { $0 = .cancelled }
        continuation.resume()
      }
    }
    if let end = ended.withLock({ $0 }) { return end }
    return control.withLock { $0.parkEnds.removeValue(forKey: index) } ?? .released
  }

  /// Takes the cancelled request `index` off the parked list once its journal entry is written.
  private func unlistCancelledPark(_ index: Int) {
    control.withLock { _ = $0.parked.removeValue(forKey: index) }
  }

  /// Lets the parked request `index` go without the server ever seeing it.
  ///
  /// Its connection fails, and nothing is applied. Returns whether it was parked.
  @discardableResult
  public func dropParkedRequest(_ index: Int) -> Bool {
    unpark(index, ending: .dropped)
  }

  /// Answers the parked request `index` with `status` (by default a 400, a refusal for good)
  /// without applying it, as a backend that turned it down after a long wait would.
  ///
  /// Returns whether it was parked; a request whose answer is held (``Fault/holdAnswer``) was
  /// applied already, and one that repeats an idempotency key the server answered gets that
  /// answer, so either is left parked and this returns `false`.
  @discardableResult
  public func refuseParkedRequest(_ index: Int, status: Int = 400) -> Bool {
    let parked = control.withLock { $0.parked[index].map { ($0.applied, $0.request) } }
    guard let (applied, request) = parked, !applied else { return false }
    if let key = request.headers[Endpoint.idempotencyKeyHeader.lowercased()],
      hasAnswered(idempotencyKey: key)
    {
      return false
    }
    return unpark(index, ending: .refused(status: status))
  }

  /// Takes the request `index` off the parked list to end as `ending`; whether it was parked.
  private func unpark(_ index: Int, ending: ParkEnd) -> Bool {
    let continuation = control.withLock { control -> CheckedContinuation<Void, Never>? in
      guard let continuation = control.parked[index]?.continuation else { return nil }
      control.parked[index] = nil
      control.parkEnds[index] = ending
      return continuation
    }
    continuation?.resume()
    return continuation != nil
  }

  // MARK: - Journal

  /// Every request received so far, in order.
  public var journal: [JournalEntry] { control.withLock { $0.journal } }

  /// The journal's entries from request number `index` on, in order, without copying the
  /// entries before it: for a caller that reads the journal as it grows.
  public func journal(from index: Int) -> [JournalEntry] {
    control.withLock { control in
      var low = 0
      var high = control.journal.count
      while low < high {
        let middle = (low + high) / 2
        if control.journal[middle].index < index { low = middle + 1 } else { high = middle }
      }
      return Array(control.journal[low...])
    }
  }

  /// How many requests were received so far, without copying the journal.
  public var requestCount: Int { control.withLock { $0.journal.count } }

  /// The requests received with `method` on paths matching `path` (`*` matches a segment).
  public func requests(_ method: String, _ path: String) -> [JournalEntry] {
    let matcher = RequestMatcher(method, path)
    return journal.filter { matcher.matches($0.request) }
  }

  /// The requests received for `route`, such as `.postMessage`, answered with `status` when
  /// it is given.
  ///
  /// ```swift
  /// #expect(fake.requests(.postMessage, status: 201).count == 1)
  /// ```
  public func requests(_ route: Route, status: Int? = nil) -> [JournalEntry] {
    journal.filter { entry in
      entry.route == route && (status == nil || entry.status == status)
    }
  }

  /// The fault rules that have not applied to any request yet: a test that set one up for a
  /// request that never came has a wrong expectation.
  public var unfiredFaultRules: [FaultRule] {
    control.withLock { control in control.rules.filter { $0.used == 0 }.map(\.rule) }
  }

  /// The requests no endpoint matched.
  public var unmatchedRequests: [JournalEntry] { journal.filter { !$0.matched } }

  /// Forgets the journal, the fault rules and parked requests; the server's state stays.
  public func resetJournalAndFaults() {
    let parked = control.withLock { control in
      defer { control = Control() }
      return control.parked.values.compactMap(\.continuation)
    }
    for continuation in parked { continuation.resume() }
  }

}
