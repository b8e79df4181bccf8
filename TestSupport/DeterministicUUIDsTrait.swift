import Seams
import Testing

/// Gives each test case its own reproducible `UUIDSource` through `UUIDSource.current`.
///
/// The seed comes from the test's identity (see ``TestIdentity``): the same test always sees the
/// same UUIDs, different tests and different parameterized cases see different ones. Pass
/// `seed:` to pin the sequence. On a suite it applies to every test inside.
public struct DeterministicUUIDsTrait: PerTestCaseTrait {
  /// A fixed seed, or `nil` to derive one from the test.
  public let seed: UInt64?

  /// Runs the test with a seeded source installed.
  public func provideScope(
    for test: Test,
    testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    // The seed from the test's identity is worked out only if the test draws a UUID: reflecting
    // a parameterized case is the most expensive part of this trait.
    let source =
      if let seed { UUIDSource.seeded(seed) } else {
        UUIDSource.seeded(computingSeed: { TestIdentity.seed(for: test, testCase: testCase) })
      }
    try await UUIDSource.$current.withValue(source) { try await function() }
  }
}

extension Trait where Self == DeterministicUUIDsTrait {
  /// Seeds `UUIDSource.current` per test case from the test's identity.
  public static var deterministicUUIDs: Self { DeterministicUUIDsTrait(seed: nil) }

  /// Seeds `UUIDSource.current` with `seed` for every test case.
  public static func deterministicUUIDs(seed: UInt64) -> Self {
    DeterministicUUIDsTrait(seed: seed)
  }
}
