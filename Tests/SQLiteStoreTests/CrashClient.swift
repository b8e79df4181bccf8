import FakeBackend
import Foundation
import HTTPRequest
import Models
import Seams
import SyncEngine
import SyncStrategies
import Transport

@testable import SQLiteStore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A client that runs in a child process against the fake behind a socket, writes messages, and
/// is killed with SIGKILL at a seeded point: on a timer, in the middle of a commit, or after a
/// request was answered but before the client read the answer.
///
/// It appends what it did to a report file the parent reads: `saved TEXT` once a message's UI
/// save returned, `kill MODE PHASE` just before it kills itself, `final TEXT,TEXT,…` when a run
/// that is not killed has drained everything.
enum CrashClient {
  /// How a run ends.
  enum KillPlan: Sendable, CustomStringConvertible {
    case timer(Duration)
    case duringCommit(Int)
    case afterAnswer(Int)
    case never

    /// The plan of run `run`, from its seed.
    static func forRun(_ run: Int) -> KillPlan {
      var random = SeededRandomNumberGenerator(seed: UInt64(9_000 + run))
      switch run % 3 {
      case 0: return .timer(.microseconds(Int.random(in: 1_000...60_000, using: &random)))
      case 1: return .duringCommit(Int.random(in: 1...8, using: &random))
      default: return .afterAnswer(Int.random(in: 1...6, using: &random))
      }
    }

    var description: String {
      switch self {
      case .timer(let after): "timer after \(after)"
      case .duringCommit(let count): "during commit \(count)"
      case .afterAnswer(let count): "after answer \(count)"
      case .never: "never"
      }
    }
  }

  /// Runs the client; a killed run never returns, a run with `.never` returns whether it drained
  /// everything.
  ///
  /// With `forgetsChangeLog`, the store drops the change-log records of every save, as a store
  /// that kept only objects would: the test that uses it proves the checks catch lost changes.
  static func run(
    port: UInt16, storePath: String, reportPath: String, run: Int, conversation: UUID,
    plan: KillPlan, forgetsChangeLog: Bool = false
  ) async throws -> Bool {
    let report = Report(path: reportPath)
    let killer = Killer(report: report, plan: plan)
    let sqlite = try SQLiteStore(path: storePath)
    sqlite.beforeCommitting.withLock { $0 = { killer.insideCommit() } }
    let store = KillableStore(sqlite, killer: killer, forgetsChangeLog: forgetsChangeLog)
    let stack = try ModelStack(store: store, tracker: WorkTracker())
    let session = URLSession(configuration: .ephemeral)
    let base = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    let transport = KillableTransport(
      URLSessionTransport(configuration: .init(baseURL: base, retry: .never), session: session),
      killer: killer)
    let engine = SyncEngine(
      stack: stack, transport: transport,
      upstream: .standard(retryPolicy: RetryPolicy(baseDelay: .milliseconds(10), jitter: 0)))
    if case .timer(let after) = plan { killer.arm(after: after) }
    await engine.start()
    _ = await engine.settle(timeout: .seconds(10))
    let uuids = UUIDSource.seeded(UInt64(50_000 + run))
    for index in 0..<5 {
      let text = "r\(run)-m\(index)"
      try await MainActor.run {
        let context = stack.ui.context
        guard let me = context.selfUser else { return }
        try context.insert(
          Message(
            nonce: uuids.next(), conversationID: conversation, senderID: me.id, text: text,
            localTime: Date(timeIntervalSince1970: 1_800_000_000 + Double(run * 100 + index))))
        try context.save()
        report.append("saved \(text)")
      }
    }
    // Over real HTTP a slow answer is still coming: only the timeout ends the wait.
    let queue = await engine.settle(timeout: .seconds(10), quietPeriod: .seconds(10))
    guard case .never = plan else {
      killer.kill(phase: "after the run's work")
      return false
    }
    let texts = await MainActor.run { () -> [String] in
      let context = stack.ui.context
      return context.objects(Message.self).filter { $0.conversationID == conversation }
        .sorted { $0.localTime < $1.localTime }.map(\.text)
    }
    report.append("final " + texts.joined(separator: ","))
    await engine.stop()
    return queue.isIdle && queue.failed.isEmpty
  }
}

/// Lines appended to the report file, one writer at a time; the kernel keeps them when the
/// process is killed.
final class Report: Sendable {
  let path: String
  private let writing = Locked(())

  init(path: String) {
    self.path = path
  }

  func append(_ line: String) {
    writing.withLock { _ in
      guard let handle = FileHandle(forWritingAtPath: path) else { return }
      handle.seekToEndOfFile()
      handle.write(Data((line + "\n").utf8))
      try? handle.close()
    }
  }
}

/// Ends the process the way a crash would, when the run's plan says so.
final class Killer: Sendable {
  private let report: Report
  private let plan: CrashClient.KillPlan
  private let counts = Locked((commits: 0, answers: 0, inCommit: false))
  private let dying = Locked(())

  init(report: Report, plan: CrashClient.KillPlan) {
    self.report = report
    self.plan = plan
  }

  /// Kills the process after `delay`, on a thread of its own.
  func arm(after delay: Duration) {
    let thread = Thread { [self] in
      Thread.sleep(
        forTimeInterval: Double(delay.components.attoseconds) / 1e18
          + Double(delay.components.seconds))
      let inside = counts.withLock { $0.inCommit }
      kill(phase: inside ? "inside a commit" : "outside a commit")
    }
    thread.start()
  }

  /// Notes a commit starting, for a timer that fires meanwhile.
  func commitStarted() {
    counts.withLock { $0.inCommit = true }
  }

  /// Inside a commit's transaction, its rows written: kills the process there if the plan
  /// says this commit.
  func insideCommit() {
    let number = counts.withLock { counts -> Int in
      counts.commits += 1
      return counts.commits
    }
    if case .duringCommit(let target) = plan, target == number {
      kill(phase: "inside a commit")
    }
  }

  func commitEnded() {
    counts.withLock { $0.inCommit = false }
  }

  /// Notes an answer arriving; kills the process before the client reads it if the plan says
  /// this one.
  func answerArrived() {
    let number = counts.withLock { counts -> Int in
      counts.answers += 1
      return counts.answers
    }
    if case .afterAnswer(let target) = plan, target == number {
      kill(phase: "between request and response")
    }
  }

  /// Writes one kill line and kills the process.
  ///
  /// Two paths may get here at once (the timer and the end of the run's work); the lock lets
  /// only the first write, and the process dies with the second still waiting for it, so a run
  /// never reports two kills.
  func kill(phase: String) {
    dying.withLock { _ in
      report.append("kill \(plan) \(phase)")
      _ = Foundation.kill(getpid(), SIGKILL)
    }
  }
}

/// The SQLite store, telling the killer when a commit runs; optionally one that loses the
/// change log, to prove the crash test catches that.
struct KillableStore: WrappingStore {
  let store: SQLiteStore
  let killer: Killer
  let forgetsChangeLog: Bool

  init(_ store: SQLiteStore, killer: Killer, forgetsChangeLog: Bool) {
    self.store = store
    self.killer = killer
    self.forgetsChangeLog = forgetsChangeLog
  }

  var wrapped: any ModelStore { store }

  func commit(_ save: StoreSave) throws {
    killer.commitStarted()
    defer { killer.commitEnded() }
    try store.commit(
      forgetsChangeLog ? StoreSave(changes: save.changes, metadata: save.metadata) : save)
  }
}

/// The real transport, telling the killer when an answer came back.
struct KillableTransport: TransportSession {
  let transport: URLSessionTransport
  let killer: Killer

  init(_ transport: URLSessionTransport, killer: Killer) {
    self.transport = transport
    self.killer = killer
  }

  func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    let response = try await transport.send(request, options: options)
    killer.answerArrived()
    return response
  }
}
