import CourierAPI
import FakeBackend
import Foundation
import HTTPRequest
import Models
import Seams
import SyncEngine
import SyncStrategies
import Transport

/// One life of the simulated app: a model stack on the store, an engine, a work tracker.
///
/// A restart kills it: from then on it can neither save nor hear back from the backend, as a
/// killed process could not.
@MainActor
final class AppInstance {
  let number: Int
  let stack: ModelStack
  let engine: SyncEngine
  let tracker: WorkTracker
  private let life: Lifeline
  private let refusals = SaveRefusals()

  init(
    number: Int, store: any ModelStore, fake: FakeBackend, clock: ManualTimeSource,
    uuids: UUIDSource, options: SimulationOptions, log: EventLog,
    device: DeviceLink = DeviceLink()
  ) throws {
    self.number = number
    let life = Lifeline()
    let tracker = WorkTracker()
    stack = try ModelStack(
      store: MortalStore(store: store, life: life, refusals: refusals), uuids: uuids,
      tracker: tracker, syncExecution: .mainActor, pagedObjectLimit: 0)
    let strategies =
      options.strategies ?? [
        SelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(), MessageStrategy(),
      ]
    engine = SyncEngine(
      stack: stack,
      transport: MortalTransport(
        transport: DeviceTransport(
          transport: fake.transport.limited(to: options.maxConcurrentRequests, time: clock),
          link: device),
        life: life, log: log),
      upstream: UpstreamObjectSync(
        strategies: strategies,
        retryPolicy: RetryPolicy(baseDelay: .milliseconds(200), maxDelay: .seconds(10), jitter: 0)),
      downstream: DownstreamSync(pageSize: options.pageSize), time: clock, tracker: tracker,
      maximumRequestsInFlight: options.maximumRequestsInFlight
        ?? SyncEngine.defaultMaximumRequestsInFlight,
      onEvent: { event in
        log.add("app \(number): \(event)")
        if case .notifications(_, let lastID?) = event { device.noteCursor(lastID) }
        if case .authenticationNeeded = event { log.noteSignInWait() }
        if case .changeDropped(let change) = event { log.noteDroppedChange(of: change.item.object) }
        if case .changeDropped(let change) = event, change.item.object.entity == .message {
          switch change.item.kind {
          case .insert: log.noteDroppedMessage(change.item.object.id)
          case .delete: log.noteDroppedDeletion(change.item.object.id)
          case .update: break
          }
        }
      })
    self.tracker = tracker
    self.life = life
  }

  /// Starts the engine without waiting for it: its first requests may be held by a fault
  /// that only a later step lifts.
  func start() {
    let engine = self.engine
    tracker.run("start the engine") { await engine.start() }
  }

  /// Makes the store refuse this life's next `count` saves.
  func refuseSaves(_ count: Int) {
    refusals.add(count)
  }

  /// Makes the store take every save again.
  func stopRefusingSaves() {
    refusals.clear()
  }

  /// Whether the store refused a save of a context since that context's last save it took:
  /// the context holds what it did not write, which a kill would lose.
  var holdsUnsavedState: Bool { refusals.holdsUnsaved }

  /// Ends this life: the engine stops, saves fail, answers are not heard.
  func kill() async {
    life.end()
    await engine.stop()
  }
}

/// Whether an app instance still lives.
final class Lifeline: Sendable {
  private let alive = Locked(true)

  var isAlive: Bool { alive.withLock { $0 } }

  func end() { alive.withLock { $0 = false } }
}

/// Why a killed app could not save.
struct AppKilled: Error, CustomStringConvertible {
  var description: String { "the app was killed" }
}

/// Why the store refused a save of a living app.
struct StoreRefused: Error, CustomStringConvertible {
  var description: String { "the store refused the save (the disk is full)" }
}

/// How many of an app instance's next saves the store refuses, and which contexts hold what a
/// refused save of theirs did not write.
final class SaveRefusals: Sendable {
  private let state = Locked((left: 0, holdsUnsaved: Set<ContextRole>()))

  /// Refuses `count` more saves.
  func add(_ count: Int) { state.withLock { $0.left += count } }

  /// Refuses no more saves.
  func clear() { state.withLock { $0.left = 0 } }

  /// Whether the store refused a save of some context since that context's last save it took:
  /// a save of the other context does not write what that one holds.
  var holdsUnsaved: Bool { state.withLock { !$0.holdsUnsaved.isEmpty } }

  /// Whether to refuse the save `origin` is making, counting it.
  func takeOne(from origin: ContextRole) -> Bool {
    state.withLock { state in
      let refuses = state.left > 0
      if refuses {
        state.left -= 1
        state.holdsUnsaved.insert(origin)
      } else {
        state.holdsUnsaved.remove(origin)
      }
      return refuses
    }
  }
}

/// The shared store, as one app instance sees it: gone once the instance is killed, and
/// refusing the saves a step told it to.
struct MortalStore: WrappingStore {
  let store: any ModelStore
  let life: Lifeline
  let refusals: SaveRefusals

  var wrapped: any ModelStore { store }

  func commit(_ save: StoreSave) throws {
    guard life.isAlive else { throw AppKilled() }
    if refusals.takeOne(from: save.changes.origin) { throw StoreRefused() }
    try store.commit(save)
  }
}

/// The transport, as one app instance sees it: a killed instance hears no answer.
///
/// It notes in the log each call it sends, as it goes.
struct MortalTransport: TransportSession {
  let transport: any TransportSession
  let life: Lifeline
  let log: EventLog

  func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    guard life.isAlive else { throw .cancelled }
    log.noteSent(request)
    let response = try await transport.send(request, options: options)
    guard life.isAlive else { throw .cancelled }
    return response
  }
}

/// The recent events of a run: steps, requests, the engine's reports.
final class EventLog: Sendable {
  private let entries = Locked<[String]>([])
  private let sentCalls = Locked<[(key: String, request: HTTPRequest)]>([])
  private let droppedMessages = Locked<Set<UUID>>([])
  private let droppedDeletions = Locked<Set<UUID>>([])
  private let droppedChanges = Locked<Set<ObjectReference>>([])
  private let signInWaits = Locked(0)
  private let echo: Bool

  /// Creates a log; with `echo`, each event is also printed as it happens.
  init(echo: Bool = false) {
    self.echo = echo
  }

  func add(_ entry: String) {
    if echo { FileHandle.standardError.write(Data((entry + "\n").utf8)) }
    entries.withLock { entries in
      entries.append(entry)
      if entries.count > 200 { entries.removeFirst(entries.count - 100) }
    }
  }

  /// Notes that the app sent `request`, if it is a call under an idempotency key.
  func noteSent(_ request: HTTPRequest) {
    guard
      let key = request.headers.first(where: { $0.name == Endpoint.idempotencyKeyHeader })?.value
    else { return }
    sentCalls.withLock { $0.append((key, request)) }
  }

  /// The calls sent since the last time this was asked, in the order they went, with their
  /// idempotency keys.
  func takeSentCalls() -> [(key: String, request: HTTPRequest)] {
    sentCalls.withLock { calls in
      defer { calls = [] }
      return calls
    }
  }

  /// Notes that the engine asked the app to sign its user in again.
  func noteSignInWait() {
    signInWaits.withLock { $0 += 1 }
  }

  /// How many times the engine asked the app to sign its user in again.
  var signInWaitCount: Int { signInWaits.withLock { $0 } }

  /// Notes that the app was told it dropped the unsent message `id` with its group.
  func noteDroppedMessage(_ id: UUID) {
    droppedMessages.withLock { _ = $0.insert(id) }
  }

  /// The messages noted by ``noteDroppedMessage(_:)`` since the last call, which forgets them.
  func takeDroppedMessages() -> Set<UUID> {
    Self.take(droppedMessages)
  }

  /// Notes that the app was told it dropped the deletion of message `id` with its group.
  func noteDroppedDeletion(_ id: UUID) {
    droppedDeletions.withLock { _ = $0.insert(id) }
  }

  /// The messages noted by ``noteDroppedDeletion(_:)`` since the last call, which forgets them.
  func takeDroppedDeletions() -> Set<UUID> {
    Self.take(droppedDeletions)
  }

  /// Notes that the app was told it dropped a change of `object` (with its group, or as moot).
  func noteDroppedChange(of object: ObjectReference) {
    droppedChanges.withLock { _ = $0.insert(object) }
  }

  /// The objects noted by ``noteDroppedChange(of:)`` since the last call, which forgets them.
  func takeDroppedChanges() -> Set<ObjectReference> {
    Self.take(droppedChanges)
  }

  /// What `noted` holds, emptying it.
  private static func take<Element>(_ noted: Locked<Set<Element>>) -> Set<Element> {
    noted.withLock { ids in
      defer { ids = [] }
      return ids
    }
  }

  /// The last `count` events, oldest first.
  func last(_ count: Int) -> [String] {
    entries.withLock { Array($0.suffix(count)) }
  }
}

/// Sends what the library logs into the run's event log, where a failure report shows it,
/// instead of to standard error.
struct EventLogSink: LogSink {
  let log: EventLog

  func receive(_ entry: LogEntry) { log.add("\(entry)") }
}
