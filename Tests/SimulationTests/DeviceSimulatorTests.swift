import Foundation
import Simulation
import TestSupport
import Testing

@Suite(
  "DeviceSimulator", .tags(.simulation, .sync, .integration), .courier(timeBudget: .seconds(50)))
@MainActor
struct DeviceSimulatorTests {
  /// How many seeds the normal suite runs: `COURIER_DEVICE_SEEDS`, or 4 (CI searches more
  /// with `Tools/simulate --devices`, built for release).
  nonisolated static let seedCount: UInt64 =
    ProcessInfo.processInfo.environment["COURIER_DEVICE_SEEDS"].flatMap(UInt64.init) ?? 4

  @Test("Three devices of two users end agreeing with the backend, no change taken twice")
  func manySeeds() async {
    let first =
      ProcessInfo.processInfo.environment["COURIER_DEVICE_FIRST_SEED"].flatMap(UInt64.init) ?? 1
    for seed in first..<(first + Self.seedCount) {
      // when
      let report = await DeviceSimulator.run(seed: seed, steps: 40)

      // then
      guard let violation = report.violation else { continue }
      let detail = """
        seed \(seed): \(violation)
        replay: Tools/simulate --devices --seed \(seed)
        \(report.lastEvents.joined(separator: "\n"))
        """
      Issue.record(Comment(rawValue: detail))
      return
    }
  }

  @Test(
    "A rename whose answer was lost, sent again after a restart, is not applied over another device's later rename",
    arguments: [34, 126, 337, 3195, 5850] as [UInt64]
  )
  func restartResend(seed: UInt64) async {
    // when: each seed renames on one device, loses the answer, restarts, and resends after
    // another device renamed the same thing (3195 loses the resend's answer too; 5850 fetches
    // the later rename before it reads the news of it)
    let report = await DeviceSimulator.run(seed: seed, steps: 40)

    // then
    #expect(report.violation == nil, "\(report.violation?.detail ?? "")")
  }

  @Test(
    "A member addition sent again after a restart, over news that the member left since, keeps what it sent, and the device takes the member's later addition (seed 75372)"
  )
  func restartResendOfMemberAddition() async {
    // when: one device adds Bob, whom the backend has already, and dies with the addition out;
    // after the restart it hears that the other device of the user removed him, sends the
    // addition again, and then hears the other device add him back
    let report = await DeviceSimulator.run(seed: 75372, steps: 40)

    // then
    #expect(report.violation == nil, "\(report.violation?.detail ?? "")")
  }

  @Test("The same seed replays the same schedule and sends the same requests")
  func replays() async {
    // when
    let first = await DeviceSimulator.run(seed: 11, steps: 40)
    let second = await DeviceSimulator.run(seed: 11, steps: 40)

    // then
    #expect(first.schedule == second.schedule)
    #expect(first.requests == second.requests)
  }

  @Test(
    "A device that reads its news again newest first shows an older name, and the check says so")
  func catchesOlderValues() async {
    // given: device 0 renames its user twice, and the answers and the news settle the name;
    // then it reads every news again, newest first, which ends on the first rename
    let schedule: [DeviceStep] = [
      .renameSelf(device: 0, name: "Grace"), .wait, .pull(device: 0),
      .renameSelf(device: 0, name: "Hopper"), .wait, .pull(device: 0), .pull(device: 0),
    ]

    // when
    let report = await DeviceSimulator.run(
      seed: 1, schedule: schedule, flaw: .replaysNewsBackwards)

    // then
    #expect(
      report.violation?.kind == .olderValueShown,
      "\(report.violation?.detail ?? "none")\n\(report.lastEvents.joined(separator: "\n"))")
  }

  @Test(
    "A device whose reads of news go back to the stream's start moves its cursor back, and the check says so"
  )
  func catchesCursorMovingBack() async {
    // given: device 0 read its news once; later reads answer with the stream's first news
    let schedule: [DeviceStep] = [.write(device: 1, text: "one"), .pull(device: 0)]

    // when
    let report = await DeviceSimulator.run(seed: 1, schedule: schedule, flaw: .rewindsCursor)

    // then
    #expect(
      report.violation?.kind == .cursorMovedBack,
      "\(report.violation?.detail ?? "none")\n\(report.lastEvents.joined(separator: "\n"))")
  }

  @Test(
    "A device that drops idempotency keys has a lost rename applied twice, and the check says so"
  )
  func catchesResendsApplied() async {
    // given: device 0's rename is applied, its answer lost, and it is sent again
    let schedule: [DeviceStep] = [.loseNextAnswer, .renameSelf(device: 0, name: "Grace"), .wait]

    // when
    let report = await DeviceSimulator.run(
      seed: 1, schedule: schedule, flaw: .forgetsIdempotencyKeys)

    // then
    #expect(
      report.violation?.kind == .appliedTwice,
      "\(report.violation?.detail ?? "none")\n\(report.lastEvents.joined(separator: "\n"))")
  }

  @Test("A device that never hears the news ends unlike the backend, and the check says so")
  func catchesMissedNews() async {
    // given: another device renames the group, which device 0 never hears of
    let schedule: [DeviceStep] = [.renameGroup(device: 2, name: "Tea"), .pull(device: 0)]

    // when
    let report = await DeviceSimulator.run(seed: 1, schedule: schedule, flaw: .hidesNews)

    // then
    #expect(report.violation?.kind == .endStateDiffers, "\(report.violation?.detail ?? "none")")
    #expect(report.violation?.detail.hasPrefix("device 0") == true)
  }
}
