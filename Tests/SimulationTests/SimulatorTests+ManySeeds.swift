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
    /// How many seeds run: `COURIER_SIMULATOR_SEEDS`, or 40 in the normal suite
    /// (`Tools/check-tsan` runs fewer, since ThreadSanitizer looks for races, not for schedules).
    nonisolated static let seedCount: UInt64 =
      ProcessInfo.processInfo.environment["COURIER_SIMULATOR_SEEDS"].flatMap(UInt64.init)
      ?? normalSeedCount
    /// How many seeds the normal suite runs; a larger count gets a budget that grows with it.
    ///
    /// Forty exercise every kind of step in a debug build within seconds, and keep the whole
    /// suite inside its budget; CI searches thousands with `Tools/simulate`, built for release.
    nonisolated static let normalSeedCount: UInt64 = 40

    /// The seeds in four quarters, each a test case with a budget of its own.
    ///
    /// A slow machine that takes 40 s for all of them is then not one hiccup from red. The cases
    /// run one after another; side by side on the main actor, each would last as long as all
    /// four.
    nonisolated static let quarters: [ClosedRange<UInt64>] = quarters(of: seedCount)

    /// Seeds 1 to `count` in four runs of consecutive seeds, as even as they can be; a quarter
    /// that would be empty is left out.
    nonisolated static func quarters(of count: UInt64) -> [ClosedRange<UInt64>] {
      (UInt64(0)..<4).compactMap { quarter in
        let first = count * quarter / 4 + 1
        let last = count * (quarter + 1) / 4
        return first <= last ? first...last : nil
      }
    }

    @Test(
      "Seeded short runs keep every rule, restarts and faults included",
      .serialized, .timeBudget(.seconds(50), forWork: Double(seedCount) / Double(normalSeedCount)),
      arguments: quarters)
    func thousandSeeds(seeds: ClosedRange<UInt64>) async {
      // given
      let options = SimulationOptions(steps: 12)

      // when
      let failures = await Self.brokenPromises(seeds, options: options)

      // then
      #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(
      "Seeded short runs keep every rule while the engine lets one request out at a time",
      .timeBudget(.seconds(50), forWork: Double(seedCount) / Double(normalSeedCount)))
    func oneRequestInFlight() async {
      // given: the engine, not the transport, holds back all but one request
      var options = SimulationOptions(steps: 12)
      options.maximumRequestsInFlight = 1

      // when
      let failures = await Self.brokenPromises(1...max(1, Self.seedCount / 4), options: options)

      // then
      #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Runs `seeds` with `options` and describes each seed that broke the promise, with its
    /// replay command and last events; it stops after three.
    static func brokenPromises(_ seeds: ClosedRange<UInt64>, options: SimulationOptions) async
      -> [String]
    {
      var failures: [String] = []
      for seed in seeds where failures.count < 3 {
        let report = await Simulator.run(seed: seed, options: options)
        if let violation = report.violation {
          failures.append(
            """
            seed \(seed) broke the promise \(violation)
            replay: \(options.replayCommand(seed: seed))
            \(report.lastEvents.map { "  \($0)" }.joined(separator: "\n"))
            """)
        }
      }
      return failures
    }

    @Test(
      "The quarters cover seeds 1 to the count, each once, in order",
      arguments: [1_000, 250, 7, 3, 1, 0] as [UInt64])
    func quartersCoverEverySeed(count: UInt64) {
      // when
      let quarters = Self.quarters(of: count)

      // then
      #expect(quarters.flatMap { Array($0) } == Array(stride(from: 1, through: count, by: 1)))
      #expect(quarters.count == min(Int(count), 4))
    }

    @Test("The normal suite runs the thousand seeds in quarters of 250")
    func normalSuiteQuarters() {
      // when
      let quarters = Self.quarters(of: 1_000)

      // then
      #expect(quarters == [1...250, 251...500, 501...750, 751...1_000])
    }
  }
}
