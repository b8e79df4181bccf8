import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// Pulls read in small pages, which a refused save, a kill or a sign-out can stop between two
  /// of them.
  @Suite("Pulls of many pages")
  @MainActor
  struct Pages {
    @Test(
      "A pull stopped after a page that tells of the user's earlier rename shows that name until the next pull, and no edit counts as lost (seed 21 of 300 steps in pages of two, shortened)"
    )
    func earlierRenameOnFirstPage() async {
      // given: both renames are acknowledged; the first page of news tells of the first, and
      // its save is refused, so the pull stops before the page that tells of the second
      let schedule: [SimulationStep] = [
        .toggleMember(group: 0, contact: 0), .renameSelf("n103"), .renameSelf("n123"),
        .refuseSaves(2), .pull,
      ]
      var options = SimulationOptions(steps: 300)
      options.pageSize = 2

      // when
      let report = await Simulator.run(seed: 21, schedule: schedule, options: options)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.savesRefused == 2)
    }

    @Test(
      "A message the user deleted, brought back by news of its posting read before the news of its deletion, is no loss (seed 9 of 300 steps in pages of two, shortened)"
    )
    func deletedMessageBackUntilItsNews() async {
      // given: the user writes m27 and deletes it, both acknowledged; the app is killed before
      // it reads their news, and the pull after the restart reads the page of its posting, then
      // the backend signs the user out
      let schedule: [SimulationStep] = [
        .writeMessage(conversation: 5, text: "m27"), .toggleMember(group: 5, contact: 2),
        .deleteMessage(conversation: 2), .fault(.heldAnswer), .fault(.delay), .fault(.delay),
        .fault(.networkLoss), .fault(.park), .writeMessage(conversation: 2, text: "m89"),
        .toggleMember(group: 3, contact: 1), .changeConnection(contact: 0), .fault(.signedOut),
        .restart, .releaseParked(1),
      ]
      var options = SimulationOptions(steps: 300)
      options.pageSize = 2

      // when
      let report = await Simulator.run(seed: 9, schedule: schedule, options: options)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.restarts == 1)
    }
  }
}
