import Foundation
import Models
import Seams
import SyncStrategies
import Transport

/// Wires Courier together: a UI save is merged into the sync context, the strategies turn local
/// changes into calls of the API, the transport sends them, answers are applied and saved, and
/// the UI context merges the result.
///
/// Every piece of asynchronous work is a job of the work tracker, so a `.settles` test can wait
/// for "everything settled". There is no task that listens forever: the engine is woken by saves
/// (an observer of the sync context), by answers, and by backoff timers on its clock.
///
/// The engine owns upstream retries (with backoff that honours `Retry-After`, for every method);
/// it asks the transport to retry only its downstream fetches, which are idempotent GETs. It lets
/// at most `maximumRequestsInFlight` upstream requests out at once, so that a backlog of changes
/// waits in the change log rather than as tasks and request bodies in memory; the transport may
/// send fewer at once (`URLSessionTransport` itself, any other session through
/// `TransportSession.limited(to:time:)`).
///
/// Offline (the transport reports `offline` or `cannotConnect`, or ``setOnline(_:)`` says so),
/// changes accumulate; back online they drain in dependency order.
public actor SyncEngine {
  /// The stack it synchronises.
  public nonisolated let stack: ModelStack
  /// The tracker every job is enrolled in.
  public nonisolated let tracker: WorkTracker
  let transport: any TransportSession
  let upstream: UpstreamObjectSync
  let downstream: DownstreamSync
  let time: any TimeSource
  let onEvent: (@Sendable (SyncEngineEvent) -> Void)?
  let logger = CourierLogger(category: "sync")
  /// Whether the engine was started, and whether it runs now.
  var lifecycle = Lifecycle.created
  /// What the engine believes of the backend.
  var reachability = Reachability.online
  /// The pull the engine owes since the last pull that read to the end.
  var owedPull = OwedPull.none
  /// How a pull cut short while online is pulled again (see ``defaultPullRetryPolicy``).
  let pullRetryPolicy: RetryPolicy
  /// Where the jitter of the pulls again comes from: the task's source when the engine was made.
  let random = RandomSource.current
  /// How many fetches failed for something that passes by itself (a network failure, a request
  /// out of time, a 408, 429 or 5xx), so that a pull can tell whether it was cut short.
  var temporaryFetchFailures = 0
  /// The longest `Retry-After` a temporary answer to a fetch asked for during the current pull:
  /// if the pull is cut short, it is pulled again no sooner.
  var fetchRetryAfter: Duration?
  /// How many pulls in a row were cut short while online, since the last that read to the end.
  var pullsCutShort = 0
  /// When the next pull again goes, after how many pulls cut short, and the task asleep until
  /// then.
  var pullRetryTimer: (attempt: Int, at: Duration, task: Task<Void, Never>)?
  var retryTimer: (at: Duration, task: Task<Void, Never>)?
  /// Whether a job that plans and sends requests is running.
  var planning = Planning.idle
  /// How many requests may be out at once; the rest wait, planned, in the sync context.
  let maximumRequestsInFlight: Int
  /// How many requests were handed to the transport and are not answered yet.
  var requestsInFlight = 0
  /// Answers that arrived and wait for the job that applies them; `nil` while no such job runs.
  var completed: [(token: RequestToken, outcome: UpstreamOutcome)]?
  /// The server's version of each user's profile the sync context holds.
  let userVersions = UserVersions()

  /// Creates an engine; it does nothing until ``start()``.
  ///
  /// - Parameters:
  ///   - stack: The model stack whose sync context the engine reads and writes.
  ///   - transport: The session every request goes through.
  ///   - upstream: The upstream tracker with its strategies; the standard four by default.
  ///   - downstream: How notifications and fetched pages are applied to the sync context.
  ///   - time: The clock backoff is measured on.
  ///   - tracker: Where jobs are enrolled; the stack's tracker by default.
  ///   - pullRetryPolicy: How a pull that a lost connection or a briefly unavailable backend
  ///     cut short, while the engine stays online, is pulled again on `time`; never sooner
  ///     than a `Retry-After` the backend answered with.
  ///   - maximumRequestsInFlight: How many upstream requests may be out at once: the rest wait
  ///     in the sync context's change log, not as tasks and bodies in memory, and go as answers
  ///     come. A transport may allow fewer.
  ///   - onEvent: Called with every request answered, every page applied, and every change
  ///     refused.
  public init(
    stack: ModelStack, transport: any TransportSession, upstream: UpstreamObjectSync = .standard(),
    downstream: DownstreamSync = DownstreamSync(), time: any TimeSource = SystemTimeSource(),
    tracker: WorkTracker? = nil, pullRetryPolicy: RetryPolicy = SyncEngine.defaultPullRetryPolicy,
    maximumRequestsInFlight: Int = SyncEngine.defaultMaximumRequestsInFlight,
    onEvent: (@Sendable (SyncEngineEvent) -> Void)? = nil
  ) {
    self.stack = stack
    self.transport = transport
    self.upstream = upstream
    self.downstream = downstream
    self.time = time
    self.tracker = tracker ?? stack.tracker
    self.pullRetryPolicy = pullRetryPolicy
    self.maximumRequestsInFlight = max(1, maximumRequestsInFlight)
    self.onEvent = onEvent
  }

  // MARK: - Control

  /// Starts synchronising: fetches the self user and the notifications, then pushes every local
  /// change and every later one.
  public func start() async {
    let wasCreated = lifecycle == .created
    lifecycle = .running
    if wasCreated {
      let tracker = self.tracker
      stack.sync.observeChanges { [weak self] change in
        guard let self, change.kind == .merged, change.changes.origin == .ui else { return }
        let touched = change.changes.references
        tracker.run("push after a UI save") { await self.localChangesArrived(touched) }
      }
    }
    await fetchSelfUser()
    await pullNotifications()
    pump()
  }

  /// Stops sending new requests; requests in flight finish.
  public func stop() {
    if lifecycle == .running { lifecycle = .stopped }
  }

  /// Says whether the backend is reachable: offline, changes accumulate; online, they drain.
  ///
  /// Coming online also makes up a pull that ended early since the last one that read to the
  /// end (the app pulled on a push while the network was gone): news are not left unread until
  /// the next push. A stopped engine leaves it to its next start.
  ///
  /// Saying online also ends a wait for sign-in (``isAwaitingSignIn``): call it once the user
  /// is signed in again.
  public func setOnline(_ online: Bool) {
    let wasOnline = isOnline
    reachability = reachability.said(online: online)
    guard online != wasOnline else { return }
    onEvent?(.connectivity(online: online))
    if online {
      // A new connection: pulls cut short on the old one count no more.
      pullsCutShort = 0
      upstream.retryNow()
      pump()
      // A stopped engine sends nothing new; its next start pulls anyway.
      if owedPull != .none && isRunning {
        tracker.run("pull owed since the backend was unreachable") { [weak self] in
          await self?.pullNotifications()
        }
      }
    }
  }

  /// What the sync layer is doing now.
  public func queue() async -> SyncQueueSnapshot {
    let upstream = self.upstream
    let now = time.now()
    return await stack.sync.perform { upstream.queue(in: $0, now: now) }
  }

  /// Sends the refused change of `object` again.
  ///
  /// Returns whether it had one.
  @discardableResult
  public func retryFailedChange(of object: ObjectReference) async -> Bool {
    let upstream = self.upstream
    let retried = await saveInSyncContext { upstream.retryFailedChange(of: object, in: $0) }
    pump()
    return retried
  }

  /// Gives up the refused change of `object`: a new object is removed locally, a deletion undone,
  /// changed keys take the backend's values again.
  ///
  /// Where an earlier attempt may have been applied though its answer was lost, the backend is
  /// made to match: such a key is sent again with the backend's last known value, and such a
  /// new object is deleted there (a group is left). A key another request of the object still
  /// carries is left to that request's answer.
  ///
  /// Returns whether it had one.
  @discardableResult
  public func discardFailedChange(of object: ObjectReference) async -> Bool {
    let upstream = self.upstream
    let discarded = await saveInSyncContext { upstream.discardFailedChange(of: object, in: $0) }
    pump()
    return discarded
  }

  /// Runs `body` in the sync context and saves; a failed save is reported (broken rules are
  /// rolled back by the save, and what a store refused stays for the next save), and
  /// `whenRefused` then turns what `body` returned into the result, in the context.
  func saveInSyncContext<Result: Sendable>(
    _ body: @escaping @Sendable (ModelContext) -> Result,
    whenRefused: @escaping @Sendable (Result, ModelContext) -> Result = { result, _ in result }
  ) async -> Result {
    let (result, problem) = await stack.sync.perform { context -> (Result, SaveError?) in
      let result = body(context)
      do throws(SaveError) {
        try context.save()
        return (result, nil)
      } catch {
        return (whenRefused(result, context), error)
      }
    }
    if let problem { report(.save(problem)) }
    return result
  }

  /// A task that sleeps `wait` on the engine's clock, then calls `wake` on the engine, if it is
  /// still there and the task was not cancelled: a timer, not enrolled work, so a test can be
  /// settled while it waits.
  func timer(
    after wait: Duration, _ wake: @escaping @Sendable (isolated SyncEngine) -> Void
  ) -> Task<Void, Never> {
    let time = self.time
    return Task(executorPreference: ExecutorPreference.current) { [weak self] in
      guard (try? await time.sleep(for: wait)) != nil, let self else { return }
      await self.run(wake)
    }
  }

  private func run(_ wake: @Sendable (isolated SyncEngine) -> Void) {
    wake(self)
  }

  /// Reports a problem in the log (an error unless it passes by itself) and as an event.
  func report(_ problem: SyncProblem) {
    if problem.isTransient {
      logger.warning("\(problem)")
    } else {
      logger.error("could not apply: \(problem)")
    }
    onEvent?(.problem(problem))
  }
}
