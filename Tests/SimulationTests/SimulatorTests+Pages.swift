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
      "A pull stopped after a page that tells of the user's earlier rename keeps the later name, both answered (seed 21 of 300 steps in pages of two, shortened)"
    )
    func earlierRenameOnFirstPage() async {
      // given: both renames are acknowledged; the first page of news tells of the first, and
      // its save is refused, so the pull stops before the page that tells of the second
      let schedule: [SimulationStep] = [
        .toggleMember(group: 0, contact: 0), .renameSelf("n103"), .renameSelf("n123"),
        .refuseSaves(2), .pull,
      ]
      // when
      let report = await SimulatorTests.replay(seed: 21, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.savesRefused == 2)
    }

    @Test(
      "A connection the user moved on stays as they left it while a pull reads older news of it (seed 704 of 300 steps in pages of two, shortened)"
    )
    func movedConnectionStaysWhileOlderNewsAreRead() async {
      // given: the user asks contact 2 to connect, the app is killed and sends it again, and the
      // user then cancels the request, answered; the pull's first page tells of the request,
      // and the next page is answered 503
      let schedule: [SimulationStep] = [
        .fault(.park), .requestConnection(contact: 2), .restart, .changeConnection(contact: 2),
        .fault(.heldAnswer), .fault(.serverError), .pull, .releaseParked(0),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 704, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.connectionChanges == 1)
    }

    @Test(
      "A member whose removal the backend answers as already made, by a try the app was killed during, stays out while a pull reads older news (seed 704 of 300 steps in pages of two, shortened)"
    )
    func removalAnsweredAsAlreadyMade() async {
      // given: the removal of contact 0 from a group is delayed and the app killed; the backend
      // applies it, and the try after the restart is answered 204; the pull's first page tells
      // of the group's making, with contact 0 in it, and the next page's answer is held
      let schedule: [SimulationStep] = [
        .createGroup(name: "g31", contacts: [2, 2]), .createGroup(name: "g39", contacts: [3, 3]),
        .fault(.delay), .toggleMember(group: 2, contact: 0), .fault(.delay), .restart,
        .renameSelf("n97"), .fault(.heldAnswer), .fault(.heldAnswer), .pull, .releaseParked(0),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 704, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.restarts == 1)
    }

    @Test(
      "A message the user deleted stays deleted while a pull reads the news of its posting and stops before those of its deletion (seed 9 of 300 steps in pages of two, shortened)"
    )
    func deletedMessageStaysDeletedUntilItsNews() async {
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
      // when
      let report = await SimulatorTests.replay(seed: 9, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.restarts == 1)
    }

    @Test(
      "A member the user added back stays in the group when the news of their earlier removal come on an earlier page than those of the addition (seed 760 of 300 steps in pages of two, shortened)"
    )
    func memberAddedBackAfterOlderRemovalOnEarlierPage() async {
      // given: the user takes contact A out of Lunch (answered), then adds them back while
      // offline; after a restart the addition is sent and answered between two pages, and the
      // page after it tells of the earlier removal while another member change is out
      let schedule: [SimulationStep] = [
        .fault(.signedOut), .createGroup(name: "g108", contacts: [3, 1]),
        .requestConnection(contact: 3), .restart, .remoteAddMember(group: 2, contact: 1),
        .writeMessage(conversation: 3, text: "m154"), .renameSelf("n155"),
        .toggleMember(group: 0, contact: 0), .goOffline(hanging: true),
        .toggleMember(group: 0, contact: 2), .changeConnection(contact: 0), .restart,
      ]
      // when
      let report = await SimulatorTests.replay(seed: 760, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A message the user deleted does not come back for good when the backend forgets the news of its deletion after the app read those of its posting (seed 865 of 300 steps in pages of two, shortened)"
    )
    func deletedMessageBackWhenItsDeletionNewsAreForgotten() async {
      // given: the user writes m19 and deletes it, both acknowledged; the app reads the page
      // that tells of the posting, and the backend forgets the rest before the app reads on
      let schedule: [SimulationStep] = [
        .writeMessage(conversation: 6, text: "m19"), .goOffline(hanging: true),
        .fault(.tooManyRequests), .fault(.malformedBody), .fault(.serverError), .fault(.park),
        .fault(.networkLoss), .fault(.serverError), .toggleMember(group: 5, contact: 2),
        .fault(.malformedBody), .fault(.park), .deleteMessage(conversation: 3),
        .renameGroup(group: 3, name: "r83"), .renameSelf("n84"),
        .createGroup(name: "g89", contacts: [3, 2]), .remoteRenameSelf("o90"), .goOnline,
        .fault(.delay), .restart, .pull, .releaseParked(1), .remoteRenameSelf("o117"),
        .releaseParked(3), .remoteRenameContact(contact: 1, name: "u150"),
        .expireNotifications(keepingLast: 3),
      ]
      // when
      let report = await SimulatorTests.replay(seed: 865, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }

    @Test(
      "A group the user made and left, both answered, stays gone while a pull reads the news of its making and stops before those of the leaving (seed 21 of 300 steps in pages of two, shortened)"
    )
    func leftGroupStaysGoneUntilItsNews() async {
      // given: the user makes g104 and leaves it (the generator's group 3), both answered; the
      // store refuses the save of the pull's first page, which tells of the making
      let schedule: [SimulationStep] = [
        .writeMessage(conversation: 4, text: "m97"), .createGroup(name: "g104", contacts: [3, 1]),
        .leaveGroup(group: 3), .refuseSaves(2), .pull,
      ]
      // when
      let report = await SimulatorTests.replay(seed: 21, schedule, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.savesRefused == 2)
    }

    @Test(
      "A member the user added while signed out stays added when the pages after sign-in tell that another member added and removed them, across another member call's answer (seed 63437 of 40 steps in pages of two, shortened)"
    )
    func memberAddedWhileSignedOutOutlivesNews() async {
      // given: the user adds a contact and takes another member out while signed out; another
      // member had added the contact and taken them out; the removal goes first, and the pages
      // tell of the addition before its answer and of the removal after it
      let schedule: [SimulationStep] = [
        .renameGroup(group: 2, name: "r3"), .fault(.signedOut),
        .remoteAddMember(group: 4, contact: 3), .pull, .remoteRemoveMember(group: 2, contact: 1),
        .toggleMember(group: 0, contact: 2), .toggleMember(group: 0, contact: 1),
      ]

      // when
      let report = await SimulatorTests.replay(seed: 63437, schedule, steps: 40, pageSize: 2)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
    }
  }
}
