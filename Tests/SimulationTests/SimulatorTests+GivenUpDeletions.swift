import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// Refused deletions of the self user's messages that the app gives up.
  @Suite("When the app gives up a refused message deletion")
  @MainActor
  struct GivenUpDeletions {
    /// Seed 27348 of 300 steps with two requests at once, as the shrinker shortened it: the
    /// deletion of m4 is parked and the app killed, so the backend applies it unseen; the self
    /// user is removed from the group and added back, the deletion goes again, the backend
    /// forgets the news of the deletion, and the app gives up its refusals.
    nonisolated static let seed27348Shortened: [SimulationStep] = [
      .writeMessage(conversation: 2, text: "m4"), .fault(.park), .fault(.lostResponse),
      .deleteMessage(conversation: 2), .renameSelf("n21"),
      .writeMessage(conversation: 0, text: "m23"), .createGroup(name: "g33", contacts: [1, 2]),
      .leaveGroup(group: 2), .fault(.networkLoss), .goOffline(hanging: true),
      .fault(.networkLoss), .restart, .fault(.park), .toggleMember(group: 5, contact: 3),
      .goOnline, .remoteAddSelf(group: 1), .expireNotifications(keepingLast: 1),
      .remoteRemoveSelf(group: 3), .releaseParked(3), .remoteAddSelf(group: 5), .giveUpRefused,
    ]

    @Test(
      "A message deletion an earlier life sent goes again under its key and gets the first answer, though the self user was removed from the group since, so nothing is left to give up (seed 27348 of 300 steps, shortened)"
    )
    func earlierAttemptLandedUnseen() async {
      // given: the killed app's deletion was applied; the self user is removed from the group
      // before the next life sends it again. Under a new key the resend was refused (403), and
      // before news settled a pending deletion, the refusal was given up and m4 came back here.
      let schedule = Self.seed27348Shortened

      // when
      let report = await Simulator.run(
        seed: 27348, schedule: schedule,
        options: SimulationOptions(steps: 300, maxConcurrentRequests: 2))

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      let deletions = report.requests.filter { $0.contains("/messages/") }
      #expect(deletions.count == 2)
      #expect(deletions.allSatisfy { $0.contains("→ 204") })
      #expect(report.figures.refusalsGivenUp == 0)
      #expect(report.figures.notificationExpiries == 1)
    }

    /// Seed 4189 of 300 steps with two requests at once, as the shrinker shortened it: the
    /// user deletes a message here while the self user deletes it on another device; the
    /// deletion here is refused (403, the self user removed from the group meanwhile), the
    /// catch-up after the backend forgot the cursor reads the deletion elsewhere, and the app
    /// gives up its refusals.
    nonisolated static let seed4189Shortened: [SimulationStep] = [
      .restart, .leaveGroup(group: 5), .restart, .restart,
      .writeMessage(conversation: 7, text: "m70"), .writeMessage(conversation: 3, text: "m83"),
      .createGroup(name: "g84", contacts: [3, 1]), .writeMessage(conversation: 6, text: "m85"),
      .toggleMember(group: 5, contact: 3), .toggleMember(group: 5, contact: 3),
      .fault(.delay), .fault(.delay), .fault(.park), .expireNotifications(keepingLast: 3),
      .fault(.delay), .fault(.heldAnswer), .fault(.park), .restart, .renameSelf("n196"),
      .fault(.refusal), .remoteDeleteOwnMessage(conversation: 0), .restart,
      .deleteMessage(conversation: 6), .remoteRemoveSelf(group: 4), .restart, .restart,
      .releaseParked(2), .remoteAddSelf(group: 2), .pull, .giveUpRefused,
    ]

    @Test(
      "A refused deletion of a message deleted on another device, whose news a catch-up read, does not bring it back (seed 4189 of 300 steps, shortened)"
    )
    func deletedElsewhereReadByCatchUp() async {
      // when
      let report = await Simulator.run(
        seed: 4189, schedule: Self.seed4189Shortened,
        options: SimulationOptions(steps: 300, maxConcurrentRequests: 2))

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.requests.contains { $0.contains("/messages/") && $0.contains("→ 403") })
      #expect(report.figures.deletionsElsewhere == 1)
    }
  }
}
