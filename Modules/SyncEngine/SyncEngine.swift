import Foundation
import HTTPRequest
import Models
import Seams
import SyncStrategies
import Transport

/// Wires Courier together: a UI save is merged into the sync context, the strategies turn local
/// changes into requests, the transport sends them (at most `maxInFlight` at once, the rest
/// waiting their turn in order), responses are applied and saved, and the UI context merges the
/// result.
///
/// Every piece of asynchronous work is a job of the work tracker, so a `.quiescent` test can wait
/// for "everything settled". There is no task that listens forever: the engine is woken by saves
/// (an observer of the sync context), by responses, and by backoff timers on its clock.
///
/// Offline (the transport reports `offline` or `cannotConnect`, or ``setOnline(_:)`` says so),
/// changes accumulate; back online they drain in dependency order.
public actor SyncEngine {
  /// The stack it synchronises.
  public nonisolated let stack: ModelStack
  /// The tracker every job is enrolled in.
  public nonisolated let tracker: WorkTracker
  private let transport: any TransportSession
  private let upstream: UpstreamObjectSync
  private let downstream: DownstreamSync
  private let time: any TimeSource
  private let onEvent: (@Sendable (SyncEngineEvent) -> Void)?
  private let logger = Logger(category: "sync")
  private var isRunning = false
  private var observing = false
  /// Whether the engine believes the backend is reachable.
  public private(set) var isOnline = true
  /// The id of the last notification applied.
  public private(set) var lastNotificationID: UUID?
  private var retryWakeUp: Duration?
  private var pumpScheduled = false
  private var pumpAgain = false
  private let sendSlots: ConcurrencyLimiter
  private var completed: [(token: Int, outcome: UpstreamOutcome)] = []
  private var applyScheduled = false

  /// Creates an engine; it does nothing until ``start()``.
  ///
  /// - Parameters:
  ///   - upstream: The upstream tracker with its strategies; the standard four by default.
  ///   - time: The clock backoff is measured on.
  ///   - tracker: Where jobs are enrolled; the stack's tracker by default.
  ///   - onEvent: Called with every request answered and every page applied.
  public init(
    stack: ModelStack, transport: any TransportSession, upstream: UpstreamObjectSync = .standard(),
    downstream: DownstreamSync = DownstreamSync(), time: any TimeSource = SystemTimeSource(),
    tracker: WorkTracker? = nil, maxInFlight: Int = 6,
    onEvent: (@Sendable (SyncEngineEvent) -> Void)? = nil
  ) {
    self.stack = stack
    self.transport = transport
    self.upstream = upstream
    self.downstream = downstream
    self.time = time
    self.tracker = tracker ?? stack.tracker
    self.sendSlots = ConcurrencyLimiter(limit: maxInFlight)
    self.onEvent = onEvent
  }

  // MARK: - Control

  /// Starts synchronising: fetches the self user and the notifications, then pushes every local
  /// change and every later one.
  public func start() async {
    isRunning = true
    if !observing {
      observing = true
      let tracker = self.tracker
      stack.sync.observeChanges { [weak self] change in
        guard let self, change.kind == .merged, change.changes.origin == .ui else { return }
        let touched = Self.references(in: change.changes)
        tracker.run("push after a UI save") { await self.localChangesArrived(touched) }
      }
    }
    await fetchSelfUser()
    await pullNotifications()
    pump()
  }

  /// Stops sending new requests; requests in flight finish.
  public func stop() {
    isRunning = false
  }

  /// Says whether the backend is reachable: offline, changes accumulate; online, they drain.
  public func setOnline(_ online: Bool) {
    guard online != isOnline else { return }
    isOnline = online
    onEvent?(.connectivity(online: online))
    if online {
      upstream.retryNow()
      pump()
    }
  }

  /// What the sync layer is doing now.
  public func queue() async -> SyncQueueSnapshot {
    let upstream = self.upstream
    let now = time.now()
    return await stack.sync.perform { upstream.queue(in: $0, now: now) }
  }

  // MARK: - Downstream

  /// Fetches every notification since the last one seen and applies it, then the users it
  /// mentioned that the context does not know.
  public func pullNotifications() async {
    var unknownUsers: Set<UUID> = []
    var hasMore = true
    while hasMore {
      hasMore = false
      let since = lastNotificationID
      guard let request = try? downstream.notificationsRequest(since: since),
        let response = await send(request)
      else { return }
      let downstream = self.downstream
      let result = await stack.sync.perform { context -> Result<NotificationApplication, Problem> in
        do {
          let applied = try downstream.applyNotifications(response, since: since, in: context)
          try context.save()
          return .success(applied)
        } catch {
          context.rollback()
          return .failure(Problem(text: "\(error)"))
        }
      }
      switch result {
      case .success(let applied):
        lastNotificationID = applied.lastID
        unknownUsers.formUnion(applied.unknownUsers)
        hasMore = applied.hasMore
        onEvent?(
          .notifications(count: applied.count, lastID: applied.lastID?.uuidString.lowercased()))
      case .failure(let problem):
        if response.status == 404 {
          lastNotificationID = nil
          hasMore = since != nil
        }
        report(problem.text)
      }
    }
    if !unknownUsers.isEmpty { await fetchUsers(unknownUsers) }
  }

  private func fetchSelfUser() async {
    let downstream = self.downstream
    await fetch(try? downstream.selfUserRequest()) { try downstream.applySelfUser($0, in: $1) }
  }

  private func fetchUsers(_ ids: Set<UUID>) async {
    let downstream = self.downstream
    await fetch(try? downstream.usersRequest(ids: ids)) { try downstream.applyUsers($0, in: $1) }
  }

  /// Sends `request` and applies its response to the sync context with `apply`, then saves;
  /// a failure is rolled back and reported.
  private func fetch(
    _ request: HTTPRequest?,
    apply: @escaping @Sendable (TransportResponse, ModelContext) throws -> Void
  ) async {
    guard let request, let response = await send(request) else { return }
    let problem = await stack.sync.perform { context -> String? in
      do {
        try apply(response, context)
        try context.save()
        return nil
      } catch {
        context.rollback()
        return "\(error)"
      }
    }
    if let problem { report(problem) }
  }

  /// Sends a downstream request, reporting it; `nil` if no response came.
  private func send(_ request: HTTPRequest) async -> TransportResponse? {
    do {
      let response = try await transport.send(request)
      onEvent?(.request("\(request)", outcome: "\(response.status)"))
      return response
    } catch {
      onEvent?(.request("\(request)", outcome: "\(error)"))
      noteConnectivity(after: error)
      return nil
    }
  }

  // MARK: - Upstream

  private func localChangesArrived(_ objects: Set<ObjectReference>) {
    upstream.reconsider(objects)
    pump()
  }

  /// Hands every ready request to a tracked send job; at most one planning job runs at a time,
  /// and wake-ups that arrive meanwhile make it plan once more instead of each planning alone.
  private func pump() {
    guard isRunning, isOnline else { return }
    guard !pumpScheduled else {
      pumpAgain = true
      return
    }
    pumpScheduled = true
    tracker.run("choose the next requests") { [weak self] in
      await self?.planAndSend()
    }
  }

  private func planAndSend() async {
    repeat {
      pumpAgain = false
      await startReadyRequests(now: time.now())
    } while pumpAgain && isRunning && isOnline
    pumpScheduled = false
  }

  private func startReadyRequests(now: Duration) async {
    guard isRunning, isOnline else { return }
    let upstream = self.upstream
    let ready = await stack.sync.perform { context in
      var ready: [UpstreamRequest] = []
      while let next = upstream.nextRequest(in: context, now: now) { ready.append(next) }
      return ready
    }
    for next in ready {
      tracker.run("send \(next.request)") { [weak self] in await self?.deliver(next) }
    }
    scheduleRetry()
  }

  /// Sends `next` when one of the `maxInFlight` places on the wire is free, in the order the
  /// requests were chosen.
  private func deliver(_ next: UpstreamRequest) async {
    let result: Result<TransportResponse, TransportError>
    do {
      try await sendSlots.acquire()
      defer { sendSlots.release() }
      result = .success(try await transport.send(next.request))
    } catch let error as TransportError {
      result = .failure(error)
    } catch {
      result = .failure(.cancelled)
    }
    switch result {
    case .success(let response):
      onEvent?(.request("\(next.request)", outcome: "\(response.status)"))
    case .failure(let error):
      onEvent?(.request("\(next.request)", outcome: "\(error)"))
      noteConnectivity(after: error)
    }
    let outcome = UpstreamOutcome(result)
    if case .permanent(_, let reason) = outcome {
      logger.warning("\(next.item) failed for good: \(reason)")
    }
    completed.append((next.token, outcome))
    guard !applyScheduled else { return }
    applyScheduled = true
    tracker.run("apply responses") { [weak self] in await self?.applyCompleted() }
  }

  /// Applies every response that arrived since the last time in one save of the sync context:
  /// one save (and one merge into the UI context) per batch, not per response.
  private func applyCompleted() async {
    while !completed.isEmpty {
      let batch = completed
      completed = []
      let upstream = self.upstream
      let now = time.now()
      let problem = await stack.sync.perform { context -> String? in
        for (token, outcome) in batch {
          upstream.complete(token, with: outcome, in: context, now: now)
        }
        do {
          try context.save()
          return nil
        } catch {
          return "\(error)"
        }
      }
      if let problem { report(problem) }
      pump()
    }
    applyScheduled = false
  }

  private func noteConnectivity(after error: TransportError) {
    if case .network(let failure) = error, failure == .offline || failure == .cannotConnect,
      isOnline
    {
      isOnline = false
      onEvent?(.connectivity(online: false))
    }
  }

  /// Wakes the engine when the earliest backoff ends, unless a wake-up comes sooner already.
  private func scheduleRetry() {
    guard isOnline, let at = upstream.nextRetryTime else { return }
    if let scheduled = retryWakeUp, scheduled <= at { return }
    retryWakeUp = at
    let wait = at - time.now()
    let time = self.time
    tracker.run("retry after backoff") { [weak self] in
      try? await time.sleep(for: wait)
      await self?.retryWokeUp()
    }
  }

  private func retryWokeUp() {
    retryWakeUp = nil
    pump()
  }

  private func report(_ problem: String) {
    logger.warning(problem)
    onEvent?(.problem(problem))
  }

  /// A problem carried out of the sync context.
  struct Problem: Error {
    let text: String
  }

  nonisolated static func references(in changes: ChangeSet) -> Set<ObjectReference> {
    changes.references
  }

}
