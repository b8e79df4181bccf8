import Simulation
import Testing

extension SimulatorTests {
  /// A call an earlier life of the app sent goes again first, under its key; what the user saved
  /// after it, in that life or this one, is newer than it.
  @Suite("When the app is killed with calls out")
  struct Restarts {
    @Test(
      "A block saved again while its lost call went again, then cut short by a restart, is not lost to the contact's later request (seed 98 of 300 steps, shortened)"
    )
    func blockSavedAgainSurvivesRestart() async {
      // given: the block's answer is lost; the user unblocks and blocks again while the call
      // goes again; the contact asks to connect, and the app is killed with the call parked
      let schedule: [SimulationStep] = [
        .fault(.malformedBody), .changeConnection(contact: 0), .fault(.serverError),
        .refuseSaves(1), .writeMessage(conversation: 1, text: "m10"),
        .changeConnection(contact: 0), .remoteRequest(contact: 0), .fault(.park),
        .changeConnection(contact: 0), .restart,
      ]

      // when
      let report = await SimulatorTests.replay(seed: 98, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A rename whose call a restart cut short goes again once, though the user saved the name after an older call (seed 40 of 300 steps, shortened)"
    )
    func renameAfterRefusedResendGoesOnce() async {
      // given: a rename's call is lost and the app restarts; its resend is refused after the
      // user renamed again, and the app is killed while that rename's call is out
      let schedule: [SimulationStep] = [
        .fault(.park), .renameSelf("n6"), .renameSelf("n15"), .fault(.networkLoss),
        .releaseParked(0), .fault(.delay), .restart, .fault(.refusal), .fault(.delay),
        .renameSelf("n35"), .restart,
      ]

      // when
      let report = await SimulatorTests.replay(seed: 40, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }
  }
}
