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
      "A member the user took out again, after adding them back while the removal's answer was unreadable and its resend held, stays out here and on the server (seed 24900 of 300 steps, shortened)"
    )
    func memberTakenOutWhileToggleHeld() async {
      // given: the user toggles contacts in groups while one answer is malformed and another
      // held; another member adds contact 3 to a group; the user's last edit of a member, out,
      // ends in on both sides
      let schedule: [SimulationStep] = [
        .createGroup(name: "g1", contacts: [1, 2]), .fault(.malformedBody),
        .toggleMember(group: 4, contact: 2), .fault(.heldAnswer),
        .toggleMember(group: 4, contact: 0), .createGroup(name: "g54", contacts: [1, 3]), .pull,
        .remoteAddMember(group: 0, contact: 3), .toggleMember(group: 3, contact: 0),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 24900, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A contact another member added while the self user was out of a group is in it here once the user is back, though a rename answered after the return kept the group (seed 29430 of 300 steps, shortened)"
    )
    func memberAddedWhileTheUserWasOut() async {
      // given: the user's removal of a contact is held while another member takes the self user
      // out, adds contact 1, and adds the self user back; the user's rename, refused while out
      // and retried after, is answered after the return, so the news of the removal keep the
      // group
      let schedule: [SimulationStep] = [
        .toggleMember(group: 1, contact: 0), .createGroup(name: "g55", contacts: [2, 0]),
        .toggleMember(group: 4, contact: 0), .createGroup(name: "g177", contacts: [0, 2]),
        .goOffline(hanging: true), .remoteRemoveSelf(group: 3), .fault(.malformedBody),
        .renameSelf("n224"), .remoteAddMember(group: 0, contact: 1),
        .toggleMember(group: 0, contact: 0), .writeMessage(conversation: 4, text: "m232"),
        .fault(.networkLoss), .fault(.networkLoss), .goOnline, .leaveGroup(group: 2),
        .fault(.networkLoss), .changeConnection(contact: 0), .fault(.delay), .restart,
        .renameGroup(group: 2, name: "r254"), .remoteAddSelf(group: 2), .retryRefused, .pull,
      ]

      // when
      let report = await SimulatorTests.replay(seed: 29430, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

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

    /// A schedule in which the user toggles a contact in a group and back before their change
    /// settles, while another member's change of the same contact, unknown here, stands.
    ///
    /// The user undid their own change, so nothing of theirs is lost; the last-edit check first
    /// reported these.
    struct UndoneToggle: Sendable, CustomTestStringConvertible {
      let seed: UInt64
      let story: String
      let schedule: [SimulationStep]
      var testDescription: String { "seed \(seed) of 300 steps, shortened: \(story)" }
    }

    nonisolated static let undoneToggles: [UndoneToggle] = [
      UndoneToggle(
        seed: 92, story: "the change waits behind a blocked connection's lost answer",
        schedule: [
          .writeMessage(conversation: 5, text: "m26"),
          .createGroup(name: "g36", contacts: [3, 0]), .leaveGroup(group: 2),
          .fault(.lostResponse), .changeConnection(contact: 0),
          .remoteAddMember(group: 4, contact: 0), .toggleMember(group: 0, contact: 1),
          .toggleMember(group: 4, contact: 1),
        ]),
      UndoneToggle(
        seed: 1221,
        story:
          "in a new group whose creation reached the backend, its answer lost, and was refused when resent",
        schedule: [
          .goOffline(hanging: false), .fault(.park), .renameSelf("n37"), .fault(.lostResponse),
          .leaveGroup(group: 5), .fault(.delay), .fault(.serverError),
          .fault(.tooManyRequests), .createGroup(name: "g74", contacts: [2, 0]), .goOnline,
          .fault(.networkLoss), .fault(.refusal), .remoteAddMember(group: 5, contact: 0),
          .restart, .fault(.malformedBody), .toggleMember(group: 4, contact: 1),
          .goOffline(hanging: false), .toggleMember(group: 2, contact: 3),
        ]),
      UndoneToggle(
        seed: 1832,
        story: "a 429 holds the addition, and the removal leaves nothing pending",
        schedule: [
          .createGroup(name: "g9", contacts: [3, 2]), .toggleMember(group: 4, contact: 2),
          .writeMessage(conversation: 2, text: "m41"), .fault(.tooManyRequests),
          .remoteAddMember(group: 4, contact: 3), .toggleMember(group: 2, contact: 2),
          .writeMessage(conversation: 4, text: "m60"),
          .writeMessage(conversation: 3, text: "m67"),
          .createGroup(name: "g71", contacts: [3, 1]), .changeConnection(contact: 1),
          .toggleMember(group: 1, contact: 1),
        ]),
    ]

    @Test(
      "A member the user adds and removes again before their change settles stays where another member's change put them",
      arguments: undoneToggles)
    func undoneToggle(_ toggle: UndoneToggle) async {
      // when
      let report = await Simulator.run(
        seed: toggle.seed, schedule: toggle.schedule,
        options: SimulationOptions(maxConcurrentRequests: 2))

      // then: measured from the list the user's change is measured from, the user's change
      // holds nothing for that member, so the last-edit check does not follow it
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

    @Test(
      "A contact the user takes out of a group they made, whose creation the backend kept in an earlier version, stays out when news tell of another member adding them (seed 28889 of 300 steps, shortened)"
    )
    func removalFromNewGroupAfterOthersAddition() async {
      // given: g21's creation goes three times (a 503, a delayed one the app is killed during,
      // a refusal); the user changes its members meanwhile, a member adds contact 0 on the
      // backend, and the user then takes contact 0 out here
      let schedule: [SimulationStep] = [
        .leaveGroup(group: 3), .fault(.serverError), .createGroup(name: "g21", contacts: [0, 1]),
        .fault(.delay), .toggleMember(group: 3, contact: 2), .fault(.heldAnswer),
        .fault(.heldAnswer), .fault(.refusal), .toggleMember(group: 0, contact: 2), .restart,
        .changeAccent(4), .remoteAddMember(group: 2, contact: 0), .fault(.heldAnswer),
        .toggleMember(group: 0, contact: 0),
      ]

      // when: a pull reads the news of the creation and of the addition
      let report = await SimulatorTests.replay(seed: 28889, schedule + [.releaseParked(3)])

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.membersAddedByOthers == 1)
    }
  }
}
