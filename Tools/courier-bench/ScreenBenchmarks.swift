import Foundation
import Models
import Seams

/// What a user of a chat app feels: reading one screen of a long conversation, and saving one
/// message into a large store, each at n and 10n messages, with how its cost grows.
@MainActor
func screenBenchmarks() async throws -> [BenchmarkResult] {
  let small = try await ScreenWorld(messages: 10_000)
  let large = try await ScreenWorld(messages: 100_000)

  let firstLarge = try large.firstRead()
  let readSmall = try small.readScreen()
  let readLarge = try large.readScreen()
  let readGrowth = readLarge.median.seconds / readSmall.median.seconds
  var read = BenchmarkResult(
    name: "read a screen: the latest 50 of 100,000 messages in one conversation",
    subject: readLarge, baseline: readSmall, baselineName: "itself at 10,000 messages",
    ratio: readGrowth, ratioMeaning: "growth t(10n)/t(n):", goal: "≤ 1 ms and growth ≤ 2",
    met: readLarge.median.seconds <= 0.001 && readGrowth <= 2)
  read.notes.append(
    "timed: latestMessages(in:limit:) in the UI context, after a first read, which sorts the "
      + "conversation's messages once to keep them in order")
  read.notes.append(
    String(format: "the first read at 100,000 messages: %.1f ms", firstLarge * 1000))

  let saveSmall = try await small.saveOne()
  let saveLarge = try await large.saveOne()
  let saveGrowth = saveLarge.median.seconds / saveSmall.median.seconds
  var save = BenchmarkResult(
    name: "save one message: 100,000 messages stored", subject: saveLarge, baseline: saveSmall,
    baselineName: "itself at 10,000 messages", ratio: saveGrowth,
    ratioMeaning: "growth t(10n)/t(n):", goal: "≤ 1 ms and growth ≤ 2",
    met: saveLarge.median.seconds <= 0.001 && saveGrowth <= 2)
  save.notes.append(
    "timed: insert and save() in the UI context, and the merge into the sync context")
  save.notes.append(
    String(
      format: "peak RSS of the process with both worlds open: %.0f MiB",
      Double(peakMemoryBytes()) / 1_048_576))
  return [read, save]
}

/// A stack holding `messages` messages of the self user in one group.
@MainActor
private struct ScreenWorld {
  let stack: ModelStack
  let me: User
  let group: Conversation
  let count: Int

  init(messages count: Int) async throws {
    let uuids = UUIDSource.seeded(UInt64(count) + 3)
    let me = User(id: uuids.next(), isSelf: true, name: "Me")
    let group = Conversation(
      id: uuids.next(), kind: .group, name: "Lunch", creatorID: me.id, participantIDs: [me.id],
      lastEventTime: Date(timeIntervalSince1970: 0))
    var objects: [any ModelObject] = [me, group]
    objects.reserveCapacity(count + 2)
    for index in 0..<count {
      let time = Date(timeIntervalSince1970: TimeInterval(index))
      objects.append(
        Message(
          nonce: uuids.next(), conversationID: group.id, senderID: me.id, text: "message \(index)",
          localTime: time, serverTime: time, deliveryState: .sent))
    }
    stack = ModelStack.inMemory(Tables(objects), uuids: uuids, tracker: WorkTracker())
    _ = stack.ui.context
    _ = await stack.sync.perform { $0.count(of: Message.self) }
    self.me = me
    self.group = group
    self.count = count
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
