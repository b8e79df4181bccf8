import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// The self user moving connections on: blocking, unblocking, ignoring, accepting what they
  /// ignored, and cancelling what they sent.
  @Suite("When the self user moves a connection on")
  @MainActor
  struct ConnectionChanges {
    /// The requests of `report` that change the status of a connection, with their answers.
    func statusChanges(in report: SimulationReport) -> [String] {
      report.requests.filter { $0.contains("PUT /connections/") }
    }

    @Test("Every move of a connection reaches the backend once and both sides end agreeing")
    func everyMoveReachesTheBackend() async {
      // given: contact 0 is accepted, 2 is asked and 3 asks; each is then moved on, contact 0
      // there and back, contact 3 from pending to ignored to accepted
      let schedule: [SimulationStep] = [
        .changeConnection(contact: 0), .changeConnection(contact: 0),
        .requestConnection(contact: 2), .changeConnection(contact: 2),
        .remoteRequest(contact: 3), .pull, .changeConnection(contact: 3),
        .changeConnection(contact: 3),
      ]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: the end check found the client holding every status the server holds
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.connectionChanges == 5)
      let changes = statusChanges(in: report)
      #expect(changes.count == 5, "\(changes)")
      #expect(changes.allSatisfy { $0.contains("→ 200") }, "\(changes)")
    }

    @Test(
      "A cancellation the backend refuses, since the contact accepted meanwhile, waits for the app, and giving it up leaves the connection accepted"
    )
    func cancellationOvertakenByAcceptance() async {
      // given: the request is answered "sent"; the contact accepts before the app hears of
      // it, and the user cancels the request the app still shows
      let schedule: [SimulationStep] = [
        .requestConnection(contact: 2), .remoteAccept(contact: 2), .changeConnection(contact: 2),
        .giveUpRefused, .pull,
      ]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: the 403 was shown as a refusal, given up, and the end state agrees with the server
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(statusChanges(in: report).filter { $0.contains("→ 403") }.count == 1)
      #expect(report.figures.refusalsGivenUp == 1)
    }

    @Test(
      "A request the contact withdrew is cancelled here too, and an acceptance that crossed the withdrawal is refused and given up",
      arguments: [false, true])
    func withdrawnRequest(acceptedHere: Bool) async {
      // given: contact 3 asks, the app hears of it, and the contact withdraws the request,
      // before or after the user accepts it here (the acceptance parked until then)
      let accept: [SimulationStep] = [.fault(.park), .acceptIncoming(contact: 3)]
      let schedule: [SimulationStep] =
        [.remoteRequest(contact: 3), .pull] + (acceptedHere ? accept : [])
        + [.remoteCancelRequest(contact: 3), .releaseParked(0), .giveUpRefused, .pull]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: the end check found the connection cancelled here as on the server
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.withdrawnRequests == 1)
      #expect(
        statusChanges(in: report).filter { $0.contains("→ 403") }.count == (acceptedHere ? 1 : 0))
    }

    @Test(
      "A request cancelled before it went, applied but refused when resent after a restart, and given up, ends as the backend made it (seed 20853 of 300 steps, shortened)"
    )
    func refusedRequestCancelledBeforeItWent() async {
      // given: offline, the user asks contact 3 and cancels at once; back online, the request
      // is applied but the app is killed before the answer, and its resend is refused
      let schedule: [SimulationStep] = [
        .goOffline(hanging: false), .fault(.delay), .fault(.delay), .fault(.serverError),
        .fault(.refusal), .requestConnection(contact: 3), .changeConnection(contact: 3),
        .goOnline, .renameSelf("n93"), .goOffline(hanging: true), .restart, .goOnline,
        .giveUpRefused,
      ]

      // when
      let report = await Simulator.run(
        seed: 20853, schedule: schedule,
        options: SimulationOptions(steps: 300, maxConcurrentRequests: 2))

      // then: the saved-value check found the connection as the backend holds it, sent
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.requests.filter { $0.contains("POST /connections → 400") }.count == 1)
      #expect(report.figures.refusalsGivenUp == 1)
    }

    @Test("A connection with nowhere to go is left as it is")
    func cancelledConnectionStays() async {
      // given: a request the user cancelled, and a contact with no connection at all
      let schedule: [SimulationStep] = [
        .requestConnection(contact: 2), .changeConnection(contact: 2),
        .changeConnection(contact: 2), .changeConnection(contact: 3),
      ]

      // when
      let report = await Simulator.run(seed: 3, schedule: schedule)

      // then: only the cancellation went
      #expect(report.violation == nil, "\(report.violation.map(String.init(describing:)) ?? "")")
      #expect(report.figures.connectionChanges == 1)
      #expect(statusChanges(in: report).count == 1)
    }
  }
}
