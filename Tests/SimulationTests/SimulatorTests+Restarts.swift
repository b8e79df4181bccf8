import Simulation
import Testing

extension SimulatorTests {
  /// A call an earlier life of the app sent goes again first, under its key; what the user saved
  /// after it, in that life or this one, is newer than it.
  @Suite("When the app is killed with calls out")
  struct Restarts {
    /// The backend applies a leave of group 0 and holds its answer; another member adds the self
    /// user back, the backend forgets the news, and the app restarts.
    nonisolated static let leaveHeldAcrossRestart: [SimulationStep] = [
      .fault(.heldAnswer), .leaveGroup(group: 0), .remoteAddSelf(group: 0),
      .expireNotifications(keepingLast: 1), .restart,
    ]

    @Test(
      "A leave applied before a restart goes again under its key, and another member's later return of the self user stands"
    )
    func leaveGoesAgainUnderItsKey() async {
      // given: before a deletion's call was written ahead, the next life sent the leave under
      // a new key, and the server took the self user out again
      let schedule = Self.leaveHeldAcrossRestart

      // when
      let report = await SimulatorTests.replay(seed: 1, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.requests.filter { $0.contains("/members") }.count == 2)
      #expect(report.figures.rejoinedGroups == 1)
    }

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

    @Test(
      "A member the user took out while another member's removal was out stays out after a restart (seed 1898 of 300 steps, shortened)"
    )
    func memberTakenOutAcrossRestarts() async {
      // given
      let schedule: [SimulationStep] = [
        .createGroup(name: "g93", contacts: [3, 0]),
        .createGroup(name: "g105", contacts: [2, 2]),
        .restart,
        .restart,
        .createGroup(name: "g140", contacts: [1, 3]),
        .createGroup(name: "g165", contacts: [0, 2]),
        .remoteRequest(contact: 3),
        .restart,
        .goOffline(hanging: true),
        .fault(.networkLoss),
        .remoteAddMember(group: 0, contact: 2),
        .fault(.delay),
        .fault(.malformedBody),
        .writeMessage(conversation: 6, text: "m224"),
        .fault(.lostResponse),
        .acceptIncoming(contact: 3),
        .restart,
        .toggleMember(group: 0, contact: 0),
        .fault(.signedOut),
        .changeConnection(contact: 1),
        .renameSelf("n260"),
        .goOnline,
        .renameGroup(group: 0, name: "r264"),
        .fault(.refusal),
        .fault(.serverError),
        .toggleMember(group: 5, contact: 1),
        .fault(.malformedBody),
        .fault(.networkLoss),
        .fault(.park),
        .fault(.tooManyRequests),
        .restart,
      ]

      // when
      let report = await SimulatorTests.replay(seed: 1898, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "Messages in a group that waits on a refused request to connect wait on that refusal, not blocked, after the drain (seed 1929 of 300 steps, shortened)"
    )
    func backlogAcrossRestartsDrains() async {
      // given
      let schedule: [SimulationStep] = [
        .restart,
        .goOffline(hanging: true),
        .writeMessage(conversation: 0, text: "m6"),
        .fault(.park),
        .fault(.signedOut),
        .writeMessage(conversation: 3, text: "m26"),
        .createGroup(name: "g45", contacts: [2, 2]),
        .leaveGroup(group: 4),
        .changeAccent(1),
        .restart,
        .writeMessage(conversation: 5, text: "m94"),
        .writeMessage(conversation: 0, text: "m97"),
        .requestConnection(contact: 3),
        .fault(.tooManyRequests),
        .goOnline,
        .writeMessage(conversation: 0, text: "m110"),
        .goOffline(hanging: false),
        .createGroup(name: "g114", contacts: [3, 1]),
        .fault(.serverError),
        .fault(.delay),
        .writeMessage(conversation: 6, text: "m118"),
        .fault(.malformedBody),
        .fault(.park),
        .createGroup(name: "g123", contacts: [3, 2]),
        .fault(.malformedBody),
        .restart,
        .renameSelf("n163"),
        .goOnline,
        .goOffline(hanging: true),
        .remoteAddMember(group: 0, contact: 1),
        .fault(.signedOut),
        .releaseParked(3),
        .fault(.lostResponse),
        .restart,
        .writeMessage(conversation: 2, text: "m210"),
        .fault(.refusal),
        .fault(.serverError),
        .goOnline,
      ]

      // when
      let report = await SimulatorTests.replay(seed: 1929, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A member the user took out after a restart stays out, though news read while the removal was out took them out and added them back (seed 4944 of 300 steps, shortened)"
    )
    func memberTakenOutAfterRestart() async {
      // given
      let schedule: [SimulationStep] = [
        .changeConnection(contact: 0),
        .createGroup(name: "g19", contacts: [1, 3]),
        .toggleMember(group: 4, contact: 3),
        .remoteRemoveMember(group: 4, contact: 1),
        .remoteAddMember(group: 0, contact: 0),
        .goOffline(hanging: false),
        .leaveGroup(group: 1),
        .restart,
        .toggleMember(group: 5, contact: 2),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 4944, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A connection the user blocked again while a block from before a restart was out stays blocked, though news had shown it blocked already (seed 4381 of 300 steps, shortened)"
    )
    func connectionBlockedAgainAcrossRestart() async {
      // given
      let schedule: [SimulationStep] = [
        .goOffline(hanging: true),
        .changeConnection(contact: 0),
        .fault(.malformedBody),
        .restart,
        .goOnline,
        .goOffline(hanging: true),
        .remoteRequest(contact: 0),
        .changeConnection(contact: 0),
        .changeConnection(contact: 0),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 4381, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A member added while signed out stays added across a restart, though news then told of another member adding and removing them before the call went (seed 10525 of 40 steps, one call at a time, shortened)"
    )
    func memberAddedBeforeNewsThatAgreedFirst() async {
      // given: the addition is answered 401 and waits; another member adds the same contact and
      // takes them out; the app restarts offline, and the call is still unsent when news come
      let schedule: [SimulationStep] = [
        .fault(.signedOut),
        .toggleMember(group: 0, contact: 3),
        .remoteAddMember(group: 1, contact: 0),
        .goOffline(hanging: true),
        .remoteRemoveMember(group: 4, contact: 1),
        .restart,
        .toggleMember(group: 2, contact: 1),
        .renameSelf("n35"),
        .toggleMember(group: 1, contact: 1),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 10525, schedule, steps: 40, inFlight: 1)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A member the user added back and took out again while their removal's answer was lost stays out after a restart, though another member added them after (seed 2395 of 300 steps, shortened)"
    )
    func memberSavedAgainBeforeRestartStaysOut() async {
      // given: the removal is applied and its answer held; the user adds the contact back and
      // takes them out again; another member adds the contact, and the app restarts
      let schedule: [SimulationStep] = [
        .leaveGroup(group: 4),
        .createGroup(name: "g137", contacts: [2, 2]),
        .toggleMember(group: 4, contact: 3),
        .fault(.heldAnswer),
        .toggleMember(group: 2, contact: 3),
        .expireNotifications(keepingLast: 2),
        .toggleMember(group: 0, contact: 3),
        .goOffline(hanging: true),
        .fault(.serverError),
        .toggleMember(group: 2, contact: 3),
        .remoteAddMember(group: 3, contact: 0),
        .restart,
        .remoteAddMember(group: 4, contact: 2),
        .goOnline,
      ]

      // when
      let report = await SimulatorTests.replay(seed: 2395, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A group whose rename an earlier life answered after the self user came back stays, with the user's later rename, when older news of their removal come (seed 27936 of 300 steps, shortened)"
    )
    func removalOlderThanAnAnswerKeepsTheGroup() async {
      // given: another member takes the self user out of a group and adds them back; the user
      // renames the group twice across restarts, one rename answered (after the return) and the
      // other out; the page that tells of the removal comes last, after a restart
      let schedule: [SimulationStep] = [
        .remoteRemoveSelf(group: 0), .remoteAddSelf(group: 3), .fault(.heldAnswer),
        .fault(.refusal), .fault(.delay), .fault(.heldAnswer), .renameSelf("n149"),
        .goOffline(hanging: true), .fault(.park), .fault(.park),
        .renameGroup(group: 4, name: "r170"), .restart, .fault(.delay), .fault(.tooManyRequests),
        .fault(.heldAnswer), .fault(.delay), .fault(.park), .renameGroup(group: 4, name: "r207"),
        .fault(.lostResponse), .createGroup(name: "g210", contacts: [2, 0]), .changeAccent(5),
        .createGroup(name: "g238", contacts: [3, 1]), .goOnline, .releaseParked(3),
        .releaseParked(2), .restart, .renameSelf("n275"), .releaseParked(3), .releaseParked(3),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 27936, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.removedFromGroups == 1)
    }

    @Test(
      "A group whose creation went again after another member took the self user out is dropped by the news of the removal, as on the server (seed 25024 of 300 steps, shortened)"
    )
    func creationAnsweredAfterRemovalDropsTheGroup() async {
      // given: a creation's answer is unreadable, so it goes again; meanwhile another member
      // takes the self user out of the new group, and the second answer comes after that
      let schedule: [SimulationStep] = [
        .remoteRemoveSelf(group: 5), .pull, .fault(.malformedBody), .refuseSaves(2), .fault(.park),
        .writeMessage(conversation: 7, text: "m104"), .renameSelf("n105"),
        .createGroup(name: "g106", contacts: [1, 0]), .toggleMember(group: 2, contact: 3),
        .remoteRemoveSelf(group: 4), .toggleMember(group: 3, contact: 1), .renameSelf("n119"),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 25024, schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.removedFromGroups == 2)
    }
  }
}
