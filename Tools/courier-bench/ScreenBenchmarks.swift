import Foundation
import Models
import SQLiteStore
import Seams

/// What a user of a chat app feels: reading one screen of a long conversation, and saving one
/// message into a large store, each at n and 10n messages in a SQLite store, with how its cost
/// grows.
@MainActor
func screenBenchmarks() async throws -> [BenchmarkResult] {
  let small = try await ScreenWorld(messages: 100_000)
  let large = try await ScreenWorld(messages: 1_000_000)

  let firstLarge = try large.firstRead()
  let readSmall = try small.readScreen()
  let readLarge = try large.readScreen()
  let readGrowth = readLarge.median.seconds / readSmall.median.seconds
  var read = BenchmarkResult(
    name: "read a screen: the latest 50 of 1,000,000 messages in one conversation",
    subject: readLarge, baseline: readSmall, baselineName: "itself at 100,000 messages",
    ratio: readGrowth, ratioMeaning: "growth t(10n)/t(n):", goal: "≤ 1 ms and growth ≤ 2",
    met: readLarge.median.seconds <= 0.001 && readGrowth <= 2)
  read.notes.append(
    "timed: latestMessages(in:limit:) in the UI context, which reads the page from the store's "
      + "index of places")
  read.notes.append(
    String(format: "the first read at 1,000,000 messages: %.1f ms", firstLarge * 1000))

  let saveSmall = try await small.saveOne()
  let saveLarge = try await large.saveOne()
  let saveGrowth = saveLarge.median.seconds / saveSmall.median.seconds
  var save = BenchmarkResult(
    name: "save one message: 1,000,000 messages stored", subject: saveLarge,
    baseline: saveSmall, baselineName: "itself at 100,000 messages", ratio: saveGrowth,
    ratioMeaning: "growth t(10n)/t(n):", goal: "≤ 1 ms and growth ≤ 2",
    met: saveLarge.median.seconds <= 0.001 && saveGrowth <= 2)
  save.notes.append(
    "timed: insert and save() in the UI context, the SQLite commit, and the merge into the "
      + "sync context")
  save.notes.append(
    String(
      format: "peak RSS of the process, filling both stores included: %.0f MiB",
      Double(peakMemoryBytes()) / 1_048_576))
  return [read, save]
}

/// A stack on a SQLite store holding `messages` messages of the self user in one group.
@MainActor
private final class ScreenWorld {
  let stack: ModelStack
  let me: User
  let group: Conversation
  let count: Int
  /// Where the store's file lives; removed when the world goes.
  private let directory: String

  init(messages count: Int) async throws {
    let uuids = UUIDSource.seeded(UInt64(count) + 3)
    let me = User(id: uuids.next(), isSelf: true, name: "Me")
    let group = Conversation(
      id: uuids.next(), kind: .group, name: "Lunch", creatorID: me.id, participantIDs: [me.id],
      lastEventTime: Date(timeIntervalSince1970: 0))
    directory = NSTemporaryDirectory() + "courier-bench-screens-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let store = try SQLiteStore(path: directory + "/store.sqlite")
    try store.commit(StoreSave(changes: ChangeSet(origin: .sync, inserting: [me])))
    try store.commit(StoreSave(changes: ChangeSet(origin: .sync, inserting: [group])))
    // In saves of 100,000, so that filling a million holds a tenth of them at a time.
    for start in stride(from: 0, to: count, by: 100_000) {
      let messages = (start..<min(start + 100_000, count)).map { index in
        let time = Date(timeIntervalSince1970: TimeInterval(index))
        return Message(
          nonce: uuids.next(), conversationID: group.id, senderID: me.id,
          text: "message \(index)", localTime: time, serverTime: time, deliveryState: .sent)
      }
      try store.commit(StoreSave(changes: ChangeSet(origin: .sync, inserting: messages)))
    }
    stack = try ModelStack(store: store, uuids: uuids, tracker: WorkTracker())
    _ = stack.ui.context
    _ = await stack.sync.perform { $0.count(of: Message.self) }
    self.me = me
    self.group = group
    self.count = count
  }

  deinit {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Seconds the first read of the conversation takes: it sorts the messages once.
  func firstRead() throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    let page = stack.ui.context.latestMessages(in: group, limit: 50)
    let elapsed = start.duration(to: clock.now)
    guard page.count == 50 else {
      throw BenchError.mismatch("the first screen holds \(page.count) messages")
    }
    return elapsed.seconds
  }

  /// Reads the latest 50 messages, as a chat screen opens.
  func readScreen() throws -> Samples {
    let context = stack.ui.context
    let group = group
    let last = "message \(count - 1)"
    return try Samples.measure(runs: 7) {
      let page = context.latestMessages(in: group, limit: 50)
      guard page.count == 50, page.last?.text == last else {
        throw BenchError.mismatch("the screen holds \(page.count) messages, ending otherwise")
      }
    }
  }

  /// Writes one message and saves it, until the sync context merged it.
  func saveOne() async throws -> Samples {
    let context = stack.ui.context
    let (me, group, tracker) = (me, group, stack.tracker)
    return try await Samples.measure(
      runs: 7,
      prepare: { () async throws -> Message in
        Message(
          nonce: context.makeID(), conversationID: group.id, senderID: me.id, text: "one more",
          localTime: Date(timeIntervalSince1970: 1e9))
      },
      { message in
        try context.insert(message)
        let changes = try context.save()
        _ = await tracker.settle(within: .seconds(60))
        guard changes[Message.self].inserted.count == 1 else {
          throw BenchError.mismatch("saved \(changes[Message.self].inserted.count) messages")
        }
      })
  }
}
