import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// Contacts deleting the messages they wrote.
  @Suite("When a contact deletes their message")
  @MainActor
  struct RemoteDeletions {
    @Test(
      "A message its sender deleted is gone here too, read before or after the deletion, or never if its news were forgotten",
      arguments: [
        [SimulationStep.pull, .remoteDeleteMessage(conversation: 0), .pull],
        [.remoteDeleteMessage(conversation: 0), .pull],
        [
          .pull, .remoteDeleteMessage(conversation: 0), .remotePost(conversation: 0, text: "hm"),
          .expireNotifications(keepingLast: 1),
        ],
      ])
    func deletedElsewhere(then steps: [SimulationStep]) async {
      // given: contact 0 writes twice in the first conversation, a group they share with the
      // self user, and deletes the second after the app read it, before, or with the news of
      // the deletion then forgotten (the app cannot learn of it then, and keeps the message)
      let schedule: [SimulationStep] =
        [.remotePost(conversation: 0, text: "oops"), .remotePost(conversation: 0, text: "hi")]
        + steps

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: the end check found no message here that the server no longer holds
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.messagesDeletedByOthers == 1)
    }
  }
}
