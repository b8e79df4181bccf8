import CourierAPI
import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine
import SyncStrategies
import Transport

/// A stack whose sync context holds `count` pending objects in dependency chains of depth 3:
/// groups, each with a first and a second message.
@MainActor
func pendingChains(_ count: Int, tracker: WorkTracker) async throws -> (ModelStack, UUID) {
  let uuids = UUIDSource.seeded(UInt64(count))
  let me = User(id: uuids.next(), isSelf: true, name: "Me")
  let stack = ModelStack.inMemory(Tables([me]), uuids: uuids, tracker: tracker)
  let context = stack.ui.context
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  for index in 0..<(count / 3) {
    let group = Conversation(
      id: uuids.next(), kind: .group, name: "G\(index)", creatorID: me.id, participantIDs: [me.id],
      lastEventTime: start)
    try context.insert(group)
    for step in 0..<2 {
      try context.insert(
        Message(
          nonce: uuids.next(), conversationID: group.id, senderID: me.id, text: "m\(step)",
          localTime: start.addingTimeInterval(Double(index * 2 + step))))
    }
  }
  try context.save()
  _ = await tracker.settle(within: .seconds(600))
  return (stack, me.id)
}

/// Drains every pending change: all ready requests, then all succeed, wave after wave.
func drain(_ stack: ModelStack, _ upstream: UpstreamObjectSync) async -> Int {
  var sent = 0
  while true {
    let requests = await stack.sync.perform { context in
      var ready: [UpstreamRequest] = []
      while let next = upstream.nextRequest(in: context, now: .zero) { ready.append(next) }
      for request in ready {
        upstream.complete(
          request.token, with: .success(.noContent), in: context, now: .zero)
      }
      _ = try? context.save()
      return ready.count
    }
    if requests == 0 { return sent }
    sent += requests
  }
}

func drainBenchmarks() async throws -> [BenchmarkResult] {
  var timings: [Int: Samples] = [:]
  var memoryNote = ""
  for size in [1_000, 10_000, 100_000] {
    let runs = size == 100_000 ? 3 : 5
    let before = currentMemoryBytes()
    var peakDuringSetup = 0
    let samples = try await Samples.measure(
      runs: runs,
      prepare: { () async throws -> ModelStack in
        let tracker = WorkTracker()
        let (stack, _) = try await pendingChains(size, tracker: tracker)
        peakDuringSetup = Swift.max(peakDuringSetup, currentMemoryBytes() ?? 0)
        return stack
      },
      { stack in
        let sent = await drain(stack, .standard())
        guard sent == size - size % 3 else {
          throw BenchError.mismatch("drained \(sent) requests for \(size) objects")
        }
      })
    timings[size] = samples
    if size == 100_000, let before {
      let perObject = Double(peakDuringSetup - before) / Double(size)
      memoryNote =
        String(
          format:
            "memory: peak RSS %.0f MiB; about %.0f bytes per pending object (RSS after setting up 100k minus before)",
          Double(peakMemoryBytes()) / 1_048_576, perObject)
    }
  }
  var results: [BenchmarkResult] = []
  for (small, large) in [(1_000, 10_000), (10_000, 100_000)] {
    guard let subject = timings[large], let baseline = timings[small] else { continue }
    let growth = subject.median.seconds / baseline.median.seconds
    let rate = Double(large) / subject.median.seconds
    var result = BenchmarkResult(
      name: "drain: nextRequest over \(large) pending objects (chains of depth 3)",
      subject: subject,
      baseline: baseline, baselineName: "itself at n = \(small)", ratio: growth,
      ratioMeaning: "growth t(10n)/t(n):", goal: "growth ≤ 11 and ≥ 200,000 requests/s",
      met: growth <= 11 && rate >= 200_000)
    result.notes.append(
      String(format: "%.0f requests/s (each request chosen, completed and saved)", rate))
    if large == 100_000 && !memoryNote.isEmpty { result.notes.append(memoryNote) }
    results.append(result)
  }
  return results
}

/// `count` users in the store, and the UI context renaming `changed` of them.
@MainActor
func saveAndMerge(store count: Int, changed: Int) async throws -> Samples {
  let uuids = UUIDSource.seeded(7)
  let users = (0..<count).map { User(id: uuids.next(), name: "User \($0)") }
  let ids = users.prefix(changed).map(\.id)
  return try await Samples.measure(
    runs: 5,
    prepare: { () async throws -> ModelStack in
      let tracker = WorkTracker()
      let stack = ModelStack.inMemory(Tables(users), uuids: uuids, tracker: tracker)
      _ = stack.ui.context
      _ = await stack.sync.perform { $0.count(of: User.self) }
      return stack
    },
    { stack in
      let context = stack.ui.context
      for id in ids { try context.update(User.self, id: id) { $0.name += "!" } }
      let changes = try context.save()
      _ = await stack.tracker.settle(within: .seconds(60))
      guard changes[User.self].updated.count == changed else {
        throw BenchError.mismatch("saved \(changes[User.self].updated.count) of \(changed)")
      }
    })
}

func saveMergeBenchmark() async throws -> [BenchmarkResult] {
  let subject = try await saveAndMerge(store: 100_000, changed: 10_000)
  let baseline = try await saveAndMerge(store: 10_000, changed: 1_000)
  let growth = subject.median.seconds / baseline.median.seconds
  var result = BenchmarkResult(
    name: "save-merge: 10,000 changed objects, 100,000 in the store", subject: subject,
    baseline: baseline, baselineName: "itself at n/10 (1,000 changed, 10,000 stored)",
    ratio: growth, ratioMeaning: "growth t(10n)/t(n):", goal: "≤ 50 ms",
    met: subject.median.seconds <= 0.05)
  result.notes.append(
    "timed: the edits, save() in the UI context, and the merge into the sync context")
  return [result]
}

func freshFakeBenchmark() throws -> [BenchmarkResult] {
  let iterations = 10_000
  var sink = 0
  let subject = Samples.measure(runs: 7) {
    for _ in 0..<iterations {
      let fake = FakeBackend(uuids: .seeded(1), time: SystemTimeSource())
      fake.insertSelfUser()
      fake.resetJournalAndFaults()
      sink &+= fake.journal.count
    }
  }
  let perFake = subject.median.seconds / Double(iterations)
  var result = BenchmarkResult(
    name: "fresh-fake: a new FakeBackend with a self user, then reset (×10,000)", subject: subject,
    baseline: nil, baselineName: nil, ratio: nil, ratioMeaning: "", goal: "≤ 100 µs each",
    met: perFake <= 100e-6)
  result.notes.append(String(format: "%.2f µs per fresh fake", perFake * 1e6))
  _ = sink
  return [result]
}

/// What one end-to-end run starts from: a started engine over an in-memory stack holding only
/// the self user, and the in-process fake it talks to.
typealias EndToEndWorld = (stack: ModelStack, engine: SyncEngine, fake: FakeBackend)

/// Starts an engine and a fake for an end-to-end run of `count` objects, and waits until the
/// first fetches settled.
@MainActor
func prepareEndToEnd(_ count: Int) async -> EndToEndWorld {
  let tracker = WorkTracker()
  let fake = FakeBackend(uuids: .seeded(9), time: SystemTimeSource())
  let me = fake.insertSelfUser(name: "Me")
  let uuids = UUIDSource.seeded(UInt64(count) + 11)
  let stack = ModelStack.inMemory(
    Tables([User(id: me, isSelf: true, name: "Me")]), uuids: uuids, tracker: tracker)
  let engine = SyncEngine(stack: stack, transport: fake.transport, tracker: tracker)
  await engine.start()
  _ = await tracker.settle(within: .seconds(60))
  return (stack, engine, fake)
}

/// Saves `count` objects (groups with two messages) in the UI context and waits until the
/// engine has pushed them all to the fake.
@MainActor
func runEndToEnd(_ world: EndToEndWorld, count: Int) async throws {
  let (stack, _, fake) = world
  let me = try stackSelf(stack)
  let context = stack.ui.context
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  for index in 0..<(count / 3) {
    let group = Conversation(
      id: context.makeID(), kind: .group, name: "G\(index)", creatorID: me,
      participantIDs: [me], lastEventTime: start)
    try context.insert(group)
    for step in 0..<2 {
      try context.insert(
        Message(
          nonce: context.makeID(), conversationID: group.id, senderID: me, text: "m\(step)",
          localTime: start.addingTimeInterval(Double(index * 2 + step))))
    }
  }
  try context.save()
  _ = await stack.tracker.settle(within: .seconds(600))
  let received = fake.journal.filter { $0.request.method == "POST" && $0.status == 201 }.count
  guard received == count - count % 3 else {
    throw BenchError.mismatch("the fake received \(received) of \(count) objects")
  }
}

/// `count` objects through the engine and the in-process fake, `runs` times after a warm-up
/// (3 at 100,000 and above, 5 below by default).
@MainActor
func endToEnd(_ count: Int, runs: Int? = nil) async throws -> Samples {
  try await Samples.measure(
    runs: runs ?? (count >= 100_000 ? 3 : 5), prepare: { await prepareEndToEnd(count) },
    { try await runEndToEnd($0, count: count) })
}

/// The child side of the end-to-end memory benchmark, for `--end-to-end COUNT`.
///
/// It does one run in a process of its own, so that its peak RSS is the run's alone, and
/// prints the run's seconds and the peak RSS.
@MainActor
func endToEndChild(_ arguments: [String]) async throws -> Bool {
  guard let index = arguments.firstIndex(of: "--end-to-end"), arguments.count > index + 1,
    let count = Int(arguments[index + 1])
  else { return false }
  let world = await prepareEndToEnd(count)
  let clock = ContinuousClock()
  let start = clock.now
  try await runEndToEnd(world, count: count)
  ChildRun.report(clock.now - start)
  return true
}

@MainActor
func stackSelf(_ stack: ModelStack) throws -> UUID {
  guard let me = stack.ui.context.selfUser?.id else { throw BenchError.mismatch("no self user") }
  return me
}

func endToEndBenchmarks() async throws -> [BenchmarkResult] {
  let small = try await endToEnd(10_000)
  let large = try await endToEnd(100_000)
  let growth = large.median.seconds / small.median.seconds
  var result = BenchmarkResult(
    name: "end-to-end: 100,000 objects through SyncEngine and the in-process fake", subject: large,
    baseline: small, baselineName: "itself at n = 10,000", ratio: growth,
    ratioMeaning: "growth t(10n)/t(n):", goal: "≤ 2 s, near-linear (growth ≈ 10)",
    met: large.median.seconds <= 2 && growth <= 12)
  result.notes.append(
    String(
      format: "%.0f objects/s from the UI save until the last response is applied",
      100_000 / large.median.seconds))
  return [result, try await endToEndMemory()]
}

/// The peak RSS of one end-to-end run at 10,000 and at 100,000 objects, each in a process of
/// its own: the client, its in-memory store and the fake together.
private func endToEndMemory() async throws -> BenchmarkResult {
  let small = try await ChildRun.run(["--end-to-end", "10000"])
  let large = try await ChildRun.run(["--end-to-end", "100000"])
  let mebibytes = Double(large.peakMemory) / 1_048_576
  var result = BenchmarkResult(
    name: "end-to-end memory: one run of 100,000 objects in a process of its own",
    subject: Samples(durations: [large.elapsed], warmedUp: false),
    baseline: Samples(durations: [small.elapsed], warmedUp: false),
    baselineName: "itself at n = 10,000",
    ratio: Double(large.peakMemory) / Double(small.peakMemory),
    ratioMeaning: "peak RSS growth m(10n)/m(n):", goal: "peak RSS ≤ 150 MiB",
    met: mebibytes <= 150)
  result.notes.append(
    String(
      format: "peak RSS: %.0f MiB at 100,000 objects, %.0f MiB at 10,000", mebibytes,
      Double(small.peakMemory) / 1_048_576))
  result.notes.append(
    "the process holds the client's stack on an in-memory store and the fake backend")
  return result
}
