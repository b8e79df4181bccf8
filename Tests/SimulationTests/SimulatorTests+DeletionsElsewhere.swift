import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// The self user deleting their own messages on another of their devices.
  @Suite("When the self user deletes a message on another device")
  @MainActor
  struct DeletionsElsewhere {
    /// The message the self user writes, then deletes on another device.
    nonisolated static let write = SimulationStep.writeMessage(conversation: 0, text: "oops")
    /// The deletion on another device.
    nonisolated static let deleteElsewhere = SimulationStep.remoteDeleteOwnMessage(conversation: 0)

    @Test(
      "A message deleted on another device is gone here too, whether this device had sent it, was still sending it, or read the news late, unless the news were forgotten",
      arguments: [
        [write, .advance(milliseconds: 1_000), deleteElsewhere],
        [.fault(.lostResponse), write, deleteElsewhere, .advance(milliseconds: 60_000)],
        [
          write, .advance(milliseconds: 1_000), deleteElsewhere, .advance(milliseconds: 1_000),
          .pull,
        ],
        [
          write, .advance(milliseconds: 1_000), deleteElsewhere,
          .remotePost(conversation: 0, text: "later"), .expireNotifications(keepingLast: 1),
        ],
      ])
    func deletedElsewhere(schedule: [SimulationStep]) async {
      // given: the self user writes in the first conversation, then deletes the message on
      // another device once the server has it: after this device's request was answered,
      // after its answer was lost (the resend finds the message deleted), before a pull, or
      // with the news of the deletion then forgotten (this device keeps the message then)

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: no check found the message sent here but missing on the server while the news
      // were on their way, nor still here after the drain
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.deletionsElsewhere == 1)
      // the message's request was sent once, or resent once after its answer was lost
      let posts = report.requests.filter { $0.contains("POST") && $0.contains("/messages") }
      #expect(posts.count == (schedule.first == .fault(.lostResponse) ? 2 : 1), "\(posts)")
    }

    @Test("A message not yet on the server cannot be deleted on another device")
    func notYetSent() async {
      // given: the network is away, so the message is still only here
      let schedule: [SimulationStep] = [
        .goOffline(hanging: false), .writeMessage(conversation: 0, text: "draft"),
        .remoteDeleteOwnMessage(conversation: 0), .goOnline,
      ]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.deletionsElsewhere == 0)
    }
  }
}
