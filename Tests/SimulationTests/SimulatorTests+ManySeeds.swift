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
    @Test("A thousand seeded short runs keep every rule, restarts and faults included")
    func thousandSeeds() async {
      // given
      let options = SimulationOptions(steps: 12)
      var failures: [String] = []

      // when
      for seed in UInt64(1)...1_000 where failures.count < 3 {
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
  }
}
