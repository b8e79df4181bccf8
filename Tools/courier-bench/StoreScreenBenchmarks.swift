import Foundation
import Models
import SQLiteStore
import Seams

/// Opening a stack on a SQLite store and reading the latest screen of one conversation through
/// the UI context, in a fresh process each run, against loading the whole store; at 10,000,
/// 100,000 and 1,000,000 messages.
///
/// A stack opens without reading messages, and the page comes from the store's index of places.
func storeScreenBenchmarks() async throws -> [BenchmarkResult] {
  let directory = NSTemporaryDirectory() + "courier-bench-screen-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  var results: [BenchmarkResult] = []
  var previous: (count: Int, samples: Samples)?
  for count in [10_000, 100_000, 1_000_000] {
    let path = directory + "/store-\(count).sqlite"
    let conversation = try fillStore(at: path, messages: count)
    var screen: [Duration] = []
    var screenMemory: [Int] = []
    for _ in 0..<5 {
      let run = try await ChildRun.run(["--store-screen", path, conversation.uuidString])
      screen.append(run.elapsed)
      screenMemory.append(run.peakMemory)
    }
    let subject = Samples(durations: screen, warmedUp: false)
    let load = try await ChildRun.run(["--store-load", path])
    let memory = screenMemory.sorted()[screenMemory.count / 2]
    let mebibytes = Double(memory) / 1_048_576
    let growth = previous.map { subject.median.seconds / $0.samples.median.seconds }
    var result = BenchmarkResult(
      name:
        "store screen: open a stack on \(count.formatted()) messages and read the latest 50 of one conversation",
      subject: subject, baseline: previous?.samples,
      baselineName: previous.map { "itself at \($0.count.formatted()) messages" },
      ratio: growth, ratioMeaning: "growth t(10n)/t(n):",
      goal: "≤ 50 ms and ≤ 50 MiB RSS at 1,000,000 messages",
      met: count < 1_000_000 || (subject.median <= .milliseconds(50) && mebibytes <= 50))
    result.notes.append(
      String(format: "peak RSS of the process that opened and read: %.0f MiB (median)", mebibytes))
    result.notes.append(
      String(
        format: "loading the whole store instead: %@, peak RSS %.0f MiB",
        load.elapsed.readable, Double(load.peakMemory) / 1_048_576))
    result.notes.append("each run in a fresh process; the times exclude starting the process")
    results.append(result)
    previous = (count, subject)
  }
  return results
}

/// Writes a store of `messages` messages spread over a hundred conversations, in saves of
/// 100,000, and returns a conversation to read.
private func fillStore(at path: String, messages: Int) throws -> UUID {
  let uuids = UUIDSource.seeded(23)
  let me = User(id: uuids.next(), isSelf: true, name: "Me")
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  let conversations = (0..<100).map { index in
    Conversation(
      id: uuids.next(), kind: .group, name: "Group \(index)", creatorID: me.id,
      participantIDs: [me.id], lastEventTime: start)
  }
  let store = try SQLiteStore(path: path)
  try store.commit(StoreSave(changes: ChangeSet(origin: .sync, inserting: [me])))
  try store.commit(StoreSave(changes: ChangeSet(origin: .sync, inserting: conversations)))
  var written = 0
  while written < messages {
    let batch = (written..<min(written + 100_000, messages)).map { index in
      Message(
        nonce: uuids.next(), conversationID: conversations[index % conversations.count].id,
        senderID: me.id, text: "Message \(index)",
        localTime: start.addingTimeInterval(Double(index)),
        serverTime: start.addingTimeInterval(Double(index) + 0.5), deliveryState: .sent)
    }
    try store.commit(StoreSave(changes: ChangeSet(origin: .sync, inserting: batch)))
    written += batch.count
  }
  try store.checkpoint()
  return conversations[0].id
}

/// The child side of the benchmark, for `--store-screen PATH CONVERSATION` and
/// `--store-load PATH`: does the work once and prints its seconds and the peak RSS.
@MainActor
func storeScreenChild(_ arguments: [String]) throws -> Bool {
  let clock = ContinuousClock()
  if let index = arguments.firstIndex(of: "--store-screen"), arguments.count > index + 2,
    let conversation = UUID(uuidString: arguments[index + 2])
  {
    let start = clock.now
    let stack = try ModelStack(store: try SQLiteStore(path: arguments[index + 1]))
    let context = stack.ui.context
    let page = context.object(Conversation.self, id: conversation).map {
      context.latestMessages(in: $0, limit: 50)
    }
    let elapsed = clock.now - start
    guard let page, page.count == 50 else {
      throw BenchError.mismatch("read \(page?.count ?? 0) messages")
    }
    ChildRun.report(elapsed)
    return true
  }
  if let index = arguments.firstIndex(of: "--store-load"), arguments.count > index + 1 {
    let start = clock.now
    let state = try SQLiteStore(path: arguments[index + 1]).load()
    let elapsed = clock.now - start
    guard state.tables.count(of: Message.self) > 0 else { throw BenchError.mismatch("empty") }
    ChildRun.report(elapsed)
    return true
  }
  return false
}
