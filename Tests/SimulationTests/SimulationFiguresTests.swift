import Simulation
import TestSupport
import Testing

@Suite("SimulationFigures", .tags(.simulation), .timeBudget(.seconds(5)))
struct SimulationFiguresTests {
  /// Figures with every count set, each to a different multiple of `scale`.
  static func figures(scale: Int) -> SimulationFigures {
    var figures = SimulationFigures()
    figures.seeds = 1 * scale
    figures.steps = 2 * scale
    figures.faults = [.park: 3 * scale, .delay: 4 * scale]
    figures.offlineSpells = 5 * scale
    figures.restarts = 6 * scale
    figures.parkedRefused = 7 * scale
    figures.removedFromGroups = 8 * scale
    figures.rejoinedGroups = 9 * scale
    figures.contactRenames = 10 * scale
    figures.renamesElsewhere = 11 * scale
    figures.notificationExpiries = 12 * scale
    figures.signInWaits = 13 * scale
    figures.connectionChanges = 14 * scale
    figures.withdrawnRequests = 15 * scale
    figures.membersAddedByOthers = 16 * scale
    figures.messagesDeletedByOthers = 17 * scale
    figures.refusalsRetried = 18 * scale
    figures.refusalsGivenUp = 19 * scale
    figures.requests = 20 * scale
    figures.virtualTime = .seconds(21 * scale)
    figures.deletionsElsewhere = 22 * scale
    figures.savesRefused = 23 * scale
    return figures
  }

  @Test("It adds every count of another run's figures to its own")
  func addsEveryCount() {
    // given
    var total = Self.figures(scale: 1)

    // when
    total.add(Self.figures(scale: 2))

    // then
    #expect(total == Self.figures(scale: 3))
  }

  @Test(
    "Its summary names how often connections moved on, members and messages changed, here or elsewhere, and saves were refused"
  )
  func summaryNamesConnectionChanges() {
    // given
    let figures = Self.figures(scale: 1)

    // when
    let summary = figures.summary

    // then
    #expect(summary.contains("connections moved on 14 times"))
    #expect(summary.contains("waits for sign-in 13"))
    #expect(summary.contains("requests withdrawn 15"))
    #expect(summary.contains("members added by others 16"))
    #expect(summary.contains("messages deleted by others 17"))
    #expect(summary.contains("by the self user on another device 22"))
    #expect(summary.contains("saves refused 23"))
  }
}
