import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// Saves the store refuses for a while, as a full disk would.
  @Suite("When the store refuses saves")
  @MainActor
  struct StoreRefusals {
    @Test(
      "News whose save the store refused are read again, and the client ends as the server",
      arguments: [[SimulationStep.pull], [.renameGroup(group: 0, name: "mine"), .pull]])
    func newsOfARefusedSave(then: [SimulationStep]) async {
      // given: a contact renames a group, and the store refuses the save of the pull that
      // reads it (or of the user's rename before it, and then the pull's)
      let refused = then.count
      let schedule: [SimulationStep] =
        [.remoteRename(group: 0, name: "theirs"), .refuseSaves(refused)] + then

      // when
      let report = await Simulator.run(
        seed: 1, schedule: schedule, options: SimulationOptions(steps: schedule.count))

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.savesRefused == refused)
      #expect(report.lastEvents.contains { $0.contains("the store refused the save") })
    }
  }
}
