import Foundation
import Models
import Simulation
import SyncStrategies
import TestSupport
import Testing

@Suite("Simulator", .tags(.simulation, .sync, .integration), .courier(timeBudget: .seconds(50)))
@MainActor
struct SimulatorTests {
  /// The standard strategies with one of them replaced.
  nonisolated static func strategies(replacing position: Int, with broken: any UpstreamStrategy)
    -> [any UpstreamStrategy]
  {
    var strategies: [any UpstreamStrategy] = [
      SelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(), MessageStrategy(),
    ]
    strategies[position] = broken
    return strategies
  }

  @Test("The same seed replays the same schedule and sends the same requests")
  func replay() async {
    // given
    let options = SimulationOptions(steps: 30)

    // when
    let first = await Simulator.run(seed: 11, options: options)
    let second = await Simulator.run(seed: 11, options: options)

    // then
    #expect(first.schedule == second.schedule)
    #expect(first.requests == second.requests)
    #expect(first.requests.count > 5)
    #expect(first.figures == second.figures)
  }

  @Test("Different seeds draw different schedules")
  func seedsDiffer() {
    // given
    let generator = ScheduleGenerator(options: SimulationOptions(steps: 20))

    // when
    let schedules = Set((1...20).map { generator.schedule(seed: UInt64($0)) })

    // then
    #expect(schedules.count == 20)
  }

  @Test("The figures count every fault, restart and step the schedule held")
  func figures() async {
    // given
    let schedule: [SimulationStep] = [
      .fault(.serverError), .renameSelf("A"), .fault(.lostResponse), .renameSelf("B"),
      .goOffline(hanging: false), .goOnline, .restart, .advance(milliseconds: 5_000),
    ]

    // when
    let report = await Simulator.run(seed: 3, schedule: schedule)

    // then
    #expect(report.violation == nil)
    #expect(report.figures.steps == schedule.count)
    #expect(report.figures.faults == [.serverError: 1, .lostResponse: 1])
    #expect(report.figures.restarts == 1)
    #expect(report.figures.offlineSpells == 1)
    #expect(report.figures.virtualTime >= .seconds(66))
    #expect(report.requests.contains { $0.contains("PUT /self → 503") })
  }

  @Test("An app killed while its request is held comes back and finishes the change")
  func restartWhileInFlight() async {
    // given
    let schedule: [SimulationStep] = [
      .fault(.park), .toggleMember(group: 0, contact: 0), .restart,
      .toggleMember(group: 0, contact: 0),
    ]

    // when
    let report = await Simulator.run(seed: 860, schedule: schedule)

    // then
    #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    #expect(report.figures.restarts == 1)
  }

  @Test(
    "Seeds that once broke the promise keep it",
    arguments: [
      // A retry due while its request was in flight woke the engine in a busy loop.
      UInt64(46), 58,
      // A server copy of a message deleted here brought it back.
      764,
      // A member list computed against a stale synchronised value.
      486, 860, 1323,
      // A member request's answer recorded the list it was worked out against, undoing a
      // removal another user made while it was out.
      55048,
    ])
  func regressions(seed: UInt64) async {
    // when
    let report = await Simulator.run(seed: seed)

    // then
    #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
  }

  @Test(
    "Members another user removes while a member request is out are not added back by its answer")
  func remoteRemovalDuringMemberRequest() async {
    // given: seed 55048's schedule, shortened
    let schedule: [SimulationStep] = [
      .toggleMember(group: 0, contact: 3), .fault(.tooManyRequests),
      .toggleMember(group: 3, contact: 2), .goOffline(hanging: false),
      .renameGroup(group: 5, name: "r19"), .remoteRemoveMember(group: 3, contact: 3),
      .fault(.delay), .fault(.lostResponse), .fault(.park), .changeAccent(5), .goOnline, .pull,
      .toggleMember(group: 2, contact: 1),
    ]

    // when
    let report = await Simulator.run(seed: 55048, schedule: schedule)

    // then
    #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
  }
}
