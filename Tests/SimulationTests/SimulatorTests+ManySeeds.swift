import Foundation
import Simulation
import TestSupport
import Testing

extension SimulatorTests {
  /// Short seeded runs by the thousand, in this process.
  ///
  /// Not in an exit test: on this toolchain the test waiting for an exit test holds a thread
  /// of the cooperative pool for as long as the child runs, and with another exit test running
  /// at the same time that was both of a 2-core machine's threads, stalling the whole suite.
  /// Here the runs share the main queue with the main-actor tests, one short job at a time.
  @Suite("Many seeds")
  @MainActor
  struct ManySeeds {
    /// The thousand seeds in four quarters, each a test case with a budget of its own.
    ///
    /// A slow machine that takes 40 s for all of them is then not one hiccup from red. The cases
    /// run one after another; side by side on the main actor, each would last as long as all
    /// four.
    nonisolated static let quarters: [ClosedRange<UInt64>] = [
      1...250, 251...500, 501...750, 751...1_000,
    ]

    @Test(
      "A thousand seeded short runs keep every rule, restarts and faults included",
      .serialized, arguments: quarters)
    func thousandSeeds(seeds: ClosedRange<UInt64>) async {
      // given
      let options = SimulationOptions(steps: 12)
      var failures: [String] = []

      // when
      for seed in seeds where failures.count < 3 {
        let report = await Simulator.run(seed: seed, options: options)
        if let violation = report.violation {
          failures.append(
            """
            seed \(seed) broke the promise \(violation)
            replay: Tools/simulate --seed \(seed) --steps 12
            \(report.lastEvents.map { "  \($0)" }.joined(separator: "\n"))
            """)
        }
      }

      // then
      #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test("The quarters cover seeds 1 to 1,000, each once")
    func quartersCoverEverySeed() {
      // given
      let quarters = Self.quarters

      // when
      let seeds = quarters.flatMap { Array($0) }

      // then
      #expect(seeds == Array(1...1_000))
    }
  }
}
