import Foundation
import Testing

/// The switch for tests that take more than a second: `COURIER_SLOW_TESTS=1`.
package enum SlowTests {
  /// Whether slow tests run in this process.
  package static let isEnabled = ProcessInfo.processInfo.environment["COURIER_SLOW_TESTS"] == "1"
}

extension Trait where Self == ConditionTrait {
  /// Runs the test only when `COURIER_SLOW_TESTS=1`; pair it with `.tags(.slow)`.
  package static var onlyWhenSlowTestsEnabled: Self {
    .enabled(if: SlowTests.isEnabled, "slow test: set COURIER_SLOW_TESTS=1 to run it")
  }
}
