import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// Other members adding contacts to a group the self user is in.
  @Suite("When another member adds a contact to a group")
  @MainActor
  struct MemberAdditions {
    @Test(
      "A contact another member added while the user removed or added one is in the group here and on the server",
      arguments: [
        SimulationStep.toggleMember(group: 0, contact: 0),
        .toggleMember(group: 0, contact: 1),
      ])
    func additionCrossingAnEdit(edit: SimulationStep) async {
      // given: the user's member change is parked while another member adds a contact who is
      // not connected with the self user, then the news come before the change is answered
      let schedule: [SimulationStep] = [
        .fault(.park), edit, .remoteAddMember(group: 0, contact: 1), .pull, .releaseParked(0),
      ]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: the end check found the group's members alike on both sides
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.membersAddedByOthers == 1)
    }

    @Test("Nobody is added to a group that already has every contact")
    func groupWithEveryContact() async {
      // given: every contact but the one already in the group is added, then once more
      let schedule: [SimulationStep] = [
        .remoteAddMember(group: 0, contact: 0), .remoteAddMember(group: 0, contact: 0),
        .remoteAddMember(group: 0, contact: 0), .remoteAddMember(group: 0, contact: 0), .pull,
      ]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.membersAddedByOthers == 3)
    }
  }
}

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
