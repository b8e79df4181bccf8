import Seams
import Testing

/// The traits almost every Courier test wants, in one: deterministic UUIDs, a fresh work tracker
/// checked for quiescence, failing on logged errors, and a time budget.
///
/// ```swift
/// @Suite("Context", .tags(.models), .courier(timeBudget: .seconds(2)))
/// struct ContextTests { … }
/// ```
///
/// One scope instead of four keeps the per-test cost low; each part behaves exactly like its
/// stand-alone trait.
public struct CourierTestTrait: PerTestCaseTrait {
  /// The time budget of each test case.
  public let timeBudget: TimeBudgetTrait
  /// The quiescence check after each test case.
  public let settling: SettlesTrait
  /// A fixed UUID seed, or `nil` to derive one from the test.
  public let uuidSeed: UInt64?

  /// Runs the test inside all four scopes.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    try await DeterministicUUIDsTrait(seed: uuidSeed).provideScope(for: test, testCase: testCase) {
      try await LoggedErrorsTrait().provideScope(for: test, testCase: testCase) {
        try await settling.provideScope(for: test, testCase: testCase) {
          try await timeBudget.provideScope(for: test, testCase: testCase, performing: function)
        }
      }
    }
  }
}

extension Trait where Self == CourierTestTrait {
  /// Deterministic UUIDs, quiescence within `settleTimeout`, failing on logged errors, and a
  /// `timeBudget` per test case.
  public static func courier(
    timeBudget: Duration = .seconds(10),
    settleTimeout: Duration = .seconds(1),
    uuidSeed: UInt64? = nil
  ) -> Self {
    CourierTestTrait(
      timeBudget: .timeBudget(timeBudget), settling: .settles(within: settleTimeout),
      uuidSeed: uuidSeed)
  }
}
