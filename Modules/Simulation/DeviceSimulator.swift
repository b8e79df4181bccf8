import CourierAPI
import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine
import Transport

/// What a simulation of several devices found.
public struct DeviceSimulationReport: Sendable {
  /// The seed of the world and, unless a schedule was given, of the schedule.
  public let seed: UInt64
  /// The steps run.
  public let schedule: [DeviceStep]
  /// The first rule broken, saying which and where; `nil` when every rule held.
  public let violation: DeviceViolation?
  /// How many changes came again under their idempotency key and were answered as a repeat.
  public let repeats: Int
  /// How many messages a device posted again after a restart under a new idempotency key,
  /// which the backend kept once by their nonces.
  public let messagesPostedAgain: Int
  /// How many requests the backend received.
  public let requests: Int
  /// The last events of the run: steps, requests, the engines' reports.
  public let lastEvents: [String]
}

/// Three real clients against one fake backend: two devices of the self user and one of Ann,
/// each with its own store, engine, network and restarts, editing the same objects.
///
/// After every step no context of a device may show a name the server set before one it showed
/// already, and each device's notification cursor must not have moved back. At the end
/// every device is online with nothing held, reads its news until all is quiet, and then each
/// must show what the backend holds for its user (names, the group's name, members and
/// messages) with nothing left to send; and the backend must never have applied the same change
/// of a device twice (every value a step writes is new, so a value applied twice was sent twice,
/// and a resend applied after another device's change of the key would have undone it).
///
/// ```swift
/// let report = await DeviceSimulator.run(seed: 7, steps: 40)
/// if let violation = report.violation { print(violation, report.lastEvents) }
/// ```
@MainActor
public final class DeviceSimulator {
  /// One device: its user, its link to the backend, its store and its app's current life.
  struct Device {
    let user: UUID
    let link: DeviceLink
    let store: InMemoryStore
    var app: AppInstance
    var lives = 0
    /// Where its notification cursor has stood in its user's stream.
    var cursor = CursorTrack()
    /// The journal's length at each restart: requests from then on came from a later life.
    var restartedAt: [Int] = []
    /// The names the server set, with their versions, and the newest each context of the
    /// device showed, across restarts.
    var names = NameOrderTrack()
  }

  let seed: UInt64
  let clock = ManualTimeSource()
  let fake: FakeBackend
  let group: UUID
  let bob: UUID
  let log: EventLog
  var devices: [Device] = []
  let options = SimulationOptions()

  /// Runs the schedule of `steps` steps that `seed` draws; with `trace`, every step, request
  /// and event is printed as it happens.
  public static func run(seed: UInt64, steps: Int = 40, trace: Bool = false) async
    -> DeviceSimulationReport
  {
    await run(seed: seed, schedule: DeviceStep.schedule(seed: seed, count: steps), trace: trace)
  }

  /// Runs `schedule` in the world `seed` sets up: a replay.
  public static func run(seed: UInt64, schedule: [DeviceStep], trace: Bool = false) async
    -> DeviceSimulationReport
  {
    await run(seed: seed, schedule: schedule, flaw: nil, trace: trace)
  }

  /// Runs `schedule` with `flaw` planted in device 0's link, to show that the checks catch it.
  package static func run(
    seed: UInt64, schedule: [DeviceStep], flaw: DeviceFlaw?, trace: Bool = false
  ) async -> DeviceSimulationReport {
    await RunGate.shared.enter()
    defer { RunGate.shared.leave() }
    return await ExecutorPreference.$current.withValue(MainQueueTaskExecutor.shared) {
      await withTaskExecutorPreference(MainQueueTaskExecutor.shared) {
        do {
          let simulator = try DeviceSimulator(seed: seed, flaw: flaw, trace: trace)
          return await CourierLogger.$sink.withValue(EventLogSink(log: simulator.log)) {
            await simulator.execute(schedule)
          }
        } catch {
          return DeviceSimulationReport(
            seed: seed, schedule: schedule,
            violation: DeviceViolation(
              kind: .setup, detail: "the world could not be set up: \(error)"), repeats: 0,
            messagesPostedAgain: 0, requests: 0, lastEvents: [])
        }
      }
    }
  }

  private init(seed: UInt64, flaw: DeviceFlaw?, trace: Bool) throws {
    self.seed = seed
    log = EventLog(echo: trace)
    let fake = FakeBackend(uuids: .seeded(seed), time: clock, onUnmatched: nil)
    let me = fake.insertSelfUser(name: "Me", handle: "me")
    let ann = fake.insertUser(name: "Ann", handle: "ann")
    bob = fake.insertUser(name: "Bob", handle: "bob")
    for (user, other) in [(me, ann), (me, bob), (ann, bob)] { fake.connect(user, with: other) }
    group = fake.createGroupRemotely(name: "Lunch", by: me, members: [ann])
    self.fake = fake
    for (index, (user, handle)) in [(me, "me"), (me, "me"), (ann, "ann")].enumerated() {
      guard case .success(.signedIn(let session)) = fake.answer(.signIn(SignIn(handle: handle)))
      else { throw SetupFailed(description: "\(handle) could not sign in") }
      let link = DeviceLink(token: session.accessToken, flaw: index == 0 ? flaw : nil)
      let store = InMemoryStore()
      devices.append(
        Device(user: user, link: link, store: store, app: try makeApp(index, 0, store, link)))
    }
  }

  private func makeApp(_ device: Int, _ life: Int, _ store: InMemoryStore, _ link: DeviceLink)
    throws -> AppInstance
  {
    try AppInstance(
      number: device * 100 + life, store: store, fake: fake, clock: clock,
      uuids: .seeded(seed &* 1_000_003 &+ UInt64(device * 100 + life)), options: options,
      log: log, device: link)
  }

  private struct SetupFailed: Error, CustomStringConvertible {
    let description: String
  }

  // MARK: - Running

  private func execute(_ schedule: [DeviceStep]) async -> DeviceSimulationReport {
    for device in devices { device.app.start() }
    await quiesceAll()
    var violation: DeviceViolation?
    for (index, step) in schedule.enumerated() {
      log.add("step \(index + 1): \(step)")
      await perform(step, index)
      await quiesceAll()
      if let broken = await olderValueShown() {
        violation = DeviceViolation(
          kind: .olderValueShown, detail: "after step \(index + 1): \(broken)")
        break
      }
      if let broken = await cursorMovedBack() {
        violation = DeviceViolation(
          kind: .cursorMovedBack, detail: "after step \(index + 1): \(broken)")
        break
      }
    }
    if violation == nil {
      await settleEverything()
      violation = await differences().map { DeviceViolation(kind: .endStateDiffers, detail: $0) }
    }
    var postedAgain = 0
    if violation == nil { violation = appliedTwice(exempted: &postedAgain) }
    let repeats = countRepeats()
    for device in devices { await device.app.kill() }
    return DeviceSimulationReport(
      seed: seed, schedule: schedule, violation: violation, repeats: repeats,
      messagesPostedAgain: postedAgain, requests: fake.requestCount,
      lastEvents: log.last(60))
  }

  private func perform(_ step: DeviceStep, _ index: Int) async {
    switch step {
    case .renameSelf(let device, let name):
      edit(device) { ui, user in
        guard ui.object(User.self, id: user) != nil else { return }
        try ui.update(User.self, id: user) { $0.name = name }
      }
    case .renameGroup(let device, let name):
      edit(device) { [group] ui, user in
        guard ui.object(Conversation.self, id: group)?.participantIDs.contains(user) == true
        else { return }
        try ui.update(Conversation.self, id: group) { $0.name = name }
      }
    case .toggleBob(let device):
      edit(device) { [group, bob] ui, user in
        guard let conversation = ui.object(Conversation.self, id: group),
          conversation.participantIDs.contains(user)
        else { return }
        try ui.update(Conversation.self, id: group) {
          if $0.participantIDs.contains(bob) {
            $0.participantIDs.remove(bob)
          } else {
            $0.participantIDs.insert(bob)
          }
        }
      }
    case .write(let device, let text):
      edit(device) { [group] ui, user in
        guard ui.object(Conversation.self, id: group)?.participantIDs.contains(user) == true
        else { return }
        try ui.insert(
          Message(
            nonce: ui.makeID(), conversationID: group, senderID: user, text: text,
            localTime: Date(timeIntervalSince1970: 1_800_000_000 + Double(index))))
      }
    case .goOffline(let device):
      devices[device].link.isOffline = true
      await devices[device].app.engine.setOnline(false)
    case .goOnline(let device):
      devices[device].link.isOffline = false
      await devices[device].app.engine.setOnline(true)
    case .pull(let device):
      let engine = devices[device].app.engine
      devices[device].app.tracker.run("pull") { await engine.pullNotifications() }
    case .restart(let device):
      await restart(device)
    case .loseNextAnswer:
      fake.addFault(.once(.any(except: "GET"), .loseResponse))
    case .wait:
      clock.advance(by: .seconds(11))
    }
  }

  /// Edits the device's UI context as its user would, and saves; an edit the context refuses
  /// is rolled back, as an app shows an error and drops it.
  private func edit(_ device: Int, _ body: (ModelContext, UUID) throws -> Void) {
    let ui = devices[device].app.stack.ui.context
    do {
      try body(ui, devices[device].user)
      try ui.save()
    } catch {
      log.add("device \(device): the edit was refused: \(error)")
      ui.rollback()
    }
  }

  private func restart(_ device: Int) async {
    await devices[device].app.kill()
    devices[device].restartedAt.append(fake.requestCount)
    clock.advance(by: .seconds(61))
    await quiesceAll()
    devices[device].lives += 1
    do {
      devices[device].app = try makeApp(
        device, devices[device].lives, devices[device].store, devices[device].link)
    } catch {
      log.add("device \(device) could not start again: \(error)")
      return
    }
    if devices[device].link.isOffline { await devices[device].app.engine.setOnline(false) }
    devices[device].app.start()
  }

  /// Lets every device's jobs run until none is left that can run now.
  private func quiesceAll() async {
    for _ in 0..<2 {
      for device in devices {
        let tracker = device.app.tracker
        let fake = self.fake
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          QuiescenceProbe(
            tracker: tracker, giveUp: { fake.requestCount > 20_000 }, continuation: continuation
          ).schedule()
        }
      }
    }
  }

  /// Brings every device online with nothing held, and lets each read its news and send what
  /// it has until all is quiet.
  private func settleEverything() async {
    fake.removeFaults()
    for index in devices.indices {
      devices[index].link.isOffline = false
      await devices[index].app.engine.setOnline(true)
    }
    for _ in 0..<6 {
      for device in devices {
        let engine = device.app.engine
        device.app.tracker.run("pull at the end") { await engine.pullNotifications() }
      }
      await quiesceAll()
      clock.advance(by: .seconds(11))
      await quiesceAll()
    }
  }
}
