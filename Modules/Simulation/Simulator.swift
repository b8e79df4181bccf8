import ConnectionParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import Models
import SQLiteStore
import Seams
import SyncEngine
import SyncStrategies
import Transport

/// Runs the real sync engine, strategies, model stack and fake backend through a seeded
/// schedule of user edits, remote changes, faults, time and restarts, and checks the sync
/// promise after every step and after a final drain.
///
/// ```swift
/// let report = await Simulator.run(seed: 42, options: SimulationOptions(steps: 30))
/// if let violation = report.violation { print(violation, report.lastEvents) }
/// ```
///
/// Everything runs in one serial order on the main queue (the main actor, the engine, the
/// fake, the clock's sleepers), so a seed replays the same interleaving, and the same requests,
/// in the same process; across processes the order of hashed collections can differ unless
/// `SWIFT_DETERMINISTIC_HASHING=1` is set, as `Tools/simulate` does. Runs started at once in
/// one process take turns: they share the main queue.
@MainActor
public final class Simulator {
  let seed: UInt64
  let options: SimulationOptions
  let clock = ManualTimeSource()
  let fake: FakeBackend
  let me: UUID
  let contacts: [UUID]
  let initialGroup: UUID
  let store: any ModelStore
  let directory: String?
  let log: EventLog
  /// The client's link to the fake, where its cursors are noted and a planted flaw lives.
  let link: DeviceLink
  /// Where the client's notification cursor has stood.
  var cursor = CursorTrack()
  /// The names the server set, with their versions, and the newest each context showed.
  var names = NameOrderTrack()
  /// How often a context showed an older name that the client was sending again, which the
  /// older-name rule passes over.
  var shownWhileSentAgain = 0
  var app: AppInstance
  var figures = SimulationFigures()
  var random: SeededRandomNumberGenerator
  /// The texts the self user wrote, by conversation, in the order written.
  var written: [UUID: [String]] = [:]
  /// The texts of messages refused for good and sent again (retried, or given up and brought
  /// back as new when the app gave up their deletion too): such a message goes after those
  /// written later, which were not held back for it.
  var retriedTexts: Set<String> = []
  /// The texts of the messages the self user wrote, by id.
  var textsByID: [UUID: String] = [:]
  /// The texts of unsent messages the app dropped with their group (another member removed the
  /// self user) or the user gave up by leaving it: their requests may still land (once the self
  /// user is added back), after messages written later that did not wait for them.
  var droppedTexts: Set<String> = []
  /// The groups the self user created.
  var createdGroups: Set<UUID> = []
  /// Objects other users changed on the backend since the app last caught up.
  var remotelyTouched: Set<ObjectReference> = []
  /// What the user last saved for each key another user or device may change too.
  var lastEdits = LastEdits()
  /// What the server applied for each key the simulator follows, and the rules its order
  /// states.
  var applied = AppliedChanges<LastEdits.Key, String>()
  /// The first journal index not read yet, and those after it read already (a held request
  /// lands in the journal after later ones).
  var nextJournalIndex = 0
  var readJournal: Set<Int> = []
  /// The idempotency keys of requests the server applied: a repeat of one changed nothing.
  var appliedIdempotencyKeys: Set<String> = []
  /// For each idempotency key, the edit count of each key its call carried when it first went:
  /// a call sent again carries the changes of the saves it was made for, not those the user made
  /// since, even where a later save set the same value.
  var editsWhenFirstSent: [String: [LastEdits.Key: Int]] = [:]
  /// For each group, the members a change of its members is measured from, as the sync
  /// context had them after the last step.
  var memberBases: [UUID: Set<UUID>] = [:]
  /// Groups another member removed the self user from or added them back to, since the app last
  /// caught up with no request of theirs, or of their messages, out (a wider
  /// ``remotelyTouched`` for these steps): a request that crossed the change may land before or
  /// after it, and only the news say which (a leave settled by the removal's news, then applied
  /// after the re-add, removes the user again).
  var awaitingNews: Set<UUID> = []
  /// For each group the self user was added back to, the messages the backend held when they
  /// were: the news of a re-add bring the group, not its history, which the client dropped
  /// with the group or never had.
  var postedBeforeRejoin: [UUID: Set<UUID>] = [:]
  /// The messages whose notifications the backend forgot: the API has no message history, so
  /// an app that had not read them when it catches up never gets them.
  var forgottenMessages: Set<UUID> = []
  /// The messages whose deletion the app was told it dropped with their group (news removed the
  /// self user while the deletion was pending).
  var droppedDeletions: Set<UUID> = []
  /// The messages whose refused deletion the app gave up: they come back here as last known,
  /// though an earlier attempt of the deletion may have reached the backend.
  var givenUpDeletions: Set<UUID> = []
  /// The messages whose deletion's notification the backend forgot.
  var forgottenDeletions: Set<UUID> = []
  /// The messages their senders deleted on the backend while the self user was in the
  /// conversation, whose news therefore tell the client: another user's, or the self user's own
  /// deleted on another device, which until those news this device may hold as sent.
  var deletedBySenders: Set<UUID> = []
  var journalSeen = 0
  var instances = 0

  /// Runs the schedule `seed` draws.
  public static func run(seed: UInt64, options: SimulationOptions = SimulationOptions()) async
    -> SimulationReport
  {
    let schedule = ScheduleGenerator(options: options).schedule(seed: seed)
    return await run(seed: seed, schedule: schedule, options: options)
  }

  /// Runs `schedule` in the world `seed` sets up: a replay, or a shortened schedule.
  public static func run(
    seed: UInt64, schedule: [SimulationStep], options: SimulationOptions = SimulationOptions()
  ) async -> SimulationReport {
    await RunGate.shared.enter()
    defer { RunGate.shared.leave() }
    return await ExecutorPreference.$current.withValue(MainQueueTaskExecutor.shared) {
      await withTaskExecutorPreference(MainQueueTaskExecutor.shared) {
        do {
          let simulator = try Simulator(seed: seed, options: options)
          defer { simulator.removeFiles() }
          return await CourierLogger.$sink.withValue(EventLogSink(log: simulator.log)) {
            await simulator.execute(schedule)
          }
        } catch {
          let violation = InvariantViolation(
            invariant: .endStateDiffers, step: 0, detail: "the world could not be set up: \(error)")
          return SimulationReport(
            seed: seed, schedule: schedule, violation: violation, lastEvents: [], requests: [],
            figures: SimulationFigures())
        }
      }
    }
  }

  private init(seed: UInt64, options: SimulationOptions) throws {
    self.seed = seed
    self.options = options
    log = EventLog(echo: options.trace)
    link = DeviceLink(flaw: options.flaw)
    random = SeededRandomNumberGenerator(seed: seed ^ 0x5EED)
    let fake = FakeBackend(uuids: .seeded(seed), time: clock)
    let me = fake.insertSelfUser(name: "Me")
    let contacts = (0..<4).map { fake.insertUser(name: "Contact \($0)") }
    for contact in contacts.prefix(2) {
      fake.connectRemotely(with: contact)
    }
    self.fake = fake
    self.me = me
    self.contacts = contacts
    initialGroup = fake.createGroupRemotely(name: "Lunch", by: me, members: [contacts[0]])
    if options.durableStore {
      let directory = NSTemporaryDirectory() + "courier-simulation-\(seed)-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      self.directory = directory
      store = try SQLiteStore(path: directory + "/client.sqlite")
    } else {
      directory = nil
      store = InMemoryStore()
    }
    app = try AppInstance(
      number: 0, store: store, fake: fake, clock: clock, uuids: .seeded(seed &* 1_000_003),
      options: options, log: log, device: link)
  }

  private func removeFiles() {
    if let directory { try? FileManager.default.removeItem(atPath: directory) }
  }

  // MARK: - Running

  private func execute(_ schedule: [SimulationStep]) async -> SimulationReport {
    app.start()
    await quiesce()
    var ran: [SimulationStep] = []
    for (index, step) in schedule.enumerated() {
      ran.append(step)
      log.add("step \(index + 1): \(step)")
      await apply(step, at: index)
      figures.steps += 1
      await quiesce()
      logRequests()
      if let violation = runaway(at: index + 1) { return report(ran, violation) }
      if let violation = await checkStep(index + 1) { return report(ran, violation) }
    }
    await drain()
    logRequests()
    if let violation = runaway(at: nil) { return report(ran, violation) }
    return report(ran, await checkEnd())
  }

  private func report(_ schedule: [SimulationStep], _ violation: InvariantViolation?)
    -> SimulationReport
  {
    var figures = self.figures
    figures.seeds = 1
    figures.requests = fake.journal.count
    figures.virtualTime = clock.now()
    figures.signInWaits = log.signInWaitCount
    return SimulationReport(
      seed: seed, schedule: schedule, violation: violation, lastEvents: log.last(30),
      requests: fake.journal.map { "\($0)" }, figures: figures)
  }

  private func logRequests() {
    guard fake.requestCount > journalSeen else { return }
    let journal = fake.journal
    for entry in journal.dropFirst(journalSeen) { log.add("backend: \(entry)") }
    journalSeen = journal.count
  }

  /// Lets every job that can run, run: the main queue is served until a few rounds pass with
  /// no new job, and the app's work tracker is idle or a dozen rounds pass (the work left
  /// waits for the clock, a held request or the network).
  func quiesce() async {
    let tracker = app.tracker
    let fake = self.fake
    let limit = options.maxRequests
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      QuiescenceProbe(
        tracker: tracker, giveUp: { fake.requestCount > limit }, continuation: continuation
      ).schedule()
    }
  }

  /// Kills the app and starts it again on its store.
  ///
  /// Requests the backend held for the dead app are applied or dropped, as the backend would
  /// have done when the connection broke.
  func restart() async throws {
    figures.restarts += 1
    let losesUnsaved = app.holdsUnsavedState
    await app.kill()
    for index in fake.parkedRequests {
      if Bool.random(using: &random) {
        fake.releaseParkedRequest(index)
      } else {
        fake.dropParkedRequest(index)
      }
    }
    // Delayed and hanging requests of the dead app run out before it comes back.
    if fake.network == .unresponsive { fake.network = .offline }
    clock.advance(by: .seconds(61))
    await quiesce()
    // A kill loses what the store refused to take, the cursor's moves and the names the sync
    // context showed since its last save included: the next life reads on from what the store
    // holds. (The UI context only ever showed saved names.)
    if losesUnsaved {
      _ = link.takeCursors()
      cursor = CursorTrack()
      names.forget("sync")
    }
    instances += 1
    app = try AppInstance(
      number: instances, store: store, fake: fake, clock: clock,
      uuids: .seeded(seed &* 1_000_003 &+ UInt64(instances)), options: options, log: log,
      device: link)
    app.start()
  }

  /// A client that sent more requests than the run allows: it never stops sending.
  private func runaway(at step: Int?) -> InvariantViolation? {
    let sent = fake.requestCount
    guard sent > options.maxRequests else { return nil }
    return InvariantViolation(
      invariant: .queueNotDrained, step: step,
      detail: "the client sent \(sent) requests, more than the \(options.maxRequests) allowed")
  }

  /// With faults stopped and the network back, runs until the queue is idle.
  private func drain() async {
    log.add("drain: faults off, network up, held requests released, the store takes saves")
    fake.removeFaults()
    app.stopRefusingSaves()
    fake.network = .online
    for index in fake.parkedRequests { fake.releaseParkedRequest(index) }
    await app.engine.setOnline(true)
    for _ in 0..<200 where fake.requestCount <= options.maxRequests {
      await quiesce()
      let queue = await app.engine.queue()
      if queue.isIdle && fake.parkedRequests.isEmpty && app.tracker.isIdle { break }
      clock.advance(by: .seconds(30))
      await app.engine.setOnline(true)
    }
    await app.engine.pullNotifications()
    await quiesce()
  }
}
