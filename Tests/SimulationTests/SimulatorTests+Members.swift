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

    @Test(
      "A member the user adds and removes again while the change waits stays where another member's earlier addition put them (seed 92 of 300 steps, shortened)"
    )
    func toggledBackWhileWaiting() async {
      // given: another member adds contact 1 to "Lunch", unknown here; the user, whose change
      // waits behind a blocked connection's lost answer, adds and then removes the same contact,
      // undoing their own change, which then holds nothing for that member
      let schedule: [SimulationStep] = [
        .writeMessage(conversation: 5, text: "m26"), .createGroup(name: "g36", contacts: [3, 0]),
        .leaveGroup(group: 2), .fault(.lostResponse), .changeConnection(contact: 0),
        .remoteAddMember(group: 4, contact: 0), .toggleMember(group: 0, contact: 1),
        .toggleMember(group: 4, contact: 1),
      ]

      // when
      let report = await Simulator.run(
        seed: 92, schedule: schedule, options: SimulationOptions(maxConcurrentRequests: 2))

      // then: the last-edit check does not hold the undone change against the client
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.membersAddedByOthers == 1)
    }

    @Test(
      "A member the user adds and removes again in a group whose creation may have reached the backend stays where another member put them (seed 1221 of 300 steps, shortened)"
    )
    func toggledBackInNewGroup() async {
      // given: a group made offline, whose creation reached the backend with its answer lost;
      // another member adds contact 0 there; after a restart the resent creation is refused,
      // and the user adds and removes that contact before the creation is answered
      let schedule: [SimulationStep] = [
        .goOffline(hanging: false), .fault(.park), .renameSelf("n37"), .fault(.lostResponse),
        .leaveGroup(group: 5), .fault(.delay), .fault(.serverError), .fault(.tooManyRequests),
        .createGroup(name: "g74", contacts: [2, 0]), .goOnline, .fault(.networkLoss),
        .fault(.refusal), .remoteAddMember(group: 5, contact: 0), .restart, .fault(.malformedBody),
        .toggleMember(group: 4, contact: 1), .goOffline(hanging: false),
        .toggleMember(group: 2, contact: 3),
      ]

      // when
      let report = await Simulator.run(
        seed: 1221, schedule: schedule, options: SimulationOptions(maxConcurrentRequests: 2))

      // then: measured from what the creation sent, the user's change holds nothing for them
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.membersAddedByOthers == 1)
    }

    @Test(
      "A member the user adds while a 429 holds the change and removes again, which leaves nothing pending, stays where another member's addition put them (seed 1832 of 300 steps, shortened)"
    )
    func toggledBackToSynchronised() async {
      // given: the user removed contact 3 from their group, answered; another member adds them
      // back, unknown here; the user adds them too, which a 429 holds, and removes them again,
      // which puts the group back as last synchronised
      let schedule: [SimulationStep] = [
        .createGroup(name: "g9", contacts: [3, 2]), .toggleMember(group: 4, contact: 2),
        .writeMessage(conversation: 2, text: "m41"), .fault(.tooManyRequests),
        .remoteAddMember(group: 4, contact: 3), .toggleMember(group: 2, contact: 2),
        .writeMessage(conversation: 4, text: "m60"), .writeMessage(conversation: 3, text: "m67"),
        .createGroup(name: "g71", contacts: [3, 1]), .changeConnection(contact: 1),
        .toggleMember(group: 1, contact: 1),
      ]

      // when
      let report = await Simulator.run(
        seed: 1832, schedule: schedule, options: SimulationOptions(maxConcurrentRequests: 2))

      // then
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
