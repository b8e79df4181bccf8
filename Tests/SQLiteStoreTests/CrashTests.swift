import ConversationParsing
import FakeBackend
import Foundation
import LoopbackServer
import Models
import SQLiteStore
import Seams
import TestSupport
import Testing

@Suite(
  "A client killed again and again", .tags(.models, .integration), .failsOnLoggedErrors,
  .disabled(
    under: .thread, "its clients use URLSession to a loopback socket, which times out under TSan"))
struct CrashTests {
  static let runs = 54

  /// What a series of killed runs left: the report's lines and the server's messages.
  struct Outcome {
    let saved: [String]
    let kills: [Substring]
    let final: [String]?
    let onServer: [String]

    /// Every message reported saved is on the server once, in the order it was saved, and the
    /// client's final state is the server's.
    var keptPromise: Bool {
      Set(onServer).count == onServer.count && onServer.filter(Set(saved).contains) == saved
        && final == onServer
    }
  }

  /// Runs `runs` killed clients and a last one that drains, against a fake behind a socket.
  static func killRepeatedly(runs: Int, forgetsChangeLog: Bool) async throws -> Outcome {
    let fake = FakeBackend(uuids: .seeded(77))
    let me = fake.insertSelfUser(name: "Me")
    let ann = fake.insertUser(name: "Ann")
    let group = fake.createGroupRemotely(name: "Crashes", by: me, members: [ann])
    let server = try fake.serve()
    let directory = try TemporaryDirectory()
    let storePath = directory.file("client.sqlite")
    let reportPath = directory.file("report.txt")
    _ = FileManager.default.createFile(atPath: reportPath, contents: nil)
    let port = server.port
    for run in 0..<runs {
      await #expect(
        processExitsWith: .signal(SIGKILL), "run \(run): \(CrashClient.KillPlan.forRun(run))"
      ) {
        [
          port = port as UInt16, storePath = storePath as String, reportPath = reportPath as String,
          run = run as Int, group = group as UUID, forgets = forgetsChangeLog as Bool
        ] in
        _ = try await CrashClient.run(
          port: port, storePath: storePath, reportPath: reportPath, run: run,
          conversation: group, plan: CrashClient.KillPlan.forRun(run), forgetsChangeLog: forgets)
      }
    }
    await #expect(processExitsWith: .success, "the last run drains everything") {
      [
        port = port as UInt16, storePath = storePath as String, reportPath = reportPath as String,
        group = group as UUID, runs = runs as Int, forgets = forgetsChangeLog as Bool
      ] in
      let drained = try await CrashClient.run(
        port: port, storePath: storePath, reportPath: reportPath, run: runs,
        conversation: group, plan: .never, forgetsChangeLog: forgets)
      exit(drained ? 0 : 1)
    }
    await server.stop()
    let lines = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n")
    return Outcome(
      saved: lines.filter { $0.hasPrefix("saved ") }.map { String($0.dropFirst(6)) },
      kills: lines.filter { $0.hasPrefix("kill ") },
      final: lines.last { $0.hasPrefix("final ") }.map {
        $0.dropFirst(6).split(separator: ",").map(String.init)
      },
      onServer: fake.messages(in: group).map(\.text))
  }

  @Test(
    "Killed at seeded points, the client loses and doubles nothing it saved",
    .timeBudget(.seconds(55)))
  func killedClientKeepsItsPromise() async throws {
    // when
    let outcome = try await Self.killRepeatedly(runs: Self.runs, forgetsChangeLog: false)

    // then
    #expect(outcome.kills.count == Self.runs)
    #expect(outcome.keptPromise, "saved \(outcome.saved), on the server \(outcome.onServer)")
    let inCommit = outcome.kills.filter { $0.hasSuffix("inside a commit") }
    let inFlight = outcome.kills.filter { $0.hasSuffix("between request and response") }
    print(
      "crash test: \(outcome.kills.count) kills, \(inCommit.count) inside a commit, "
        + "\(inFlight.count) between request and response; \(outcome.saved.count) messages "
        + "reported saved, \(outcome.onServer.count) on the server")
    #expect(inCommit.count >= 5)
    #expect(inFlight.count >= 10)
  }

  @Test(
    "A store that does not keep the change log is caught losing messages",
    .timeBudget(.seconds(55)))
  func forgetfulStoreIsCaught() async throws {
    // when
    let outcome = try await Self.killRepeatedly(runs: 12, forgetsChangeLog: true)

    // then
    #expect(!outcome.keptPromise)
  }
}
