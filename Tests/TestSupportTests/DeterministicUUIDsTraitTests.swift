import Foundation
import Seams
import Testing

@testable import TestSupport

@Suite("DeterministicUUIDsTrait", .tags(.testSupport), .timeBudget(.seconds(5)))
struct DeterministicUUIDsTraitTests {
  @Test("It installs a source seeded from the test's identity", .deterministicUUIDs)
  func traitSeedsFromTestIdentity() throws {
    // given
    let expectedSeed = try #require(TestIdentity.currentSeed)

    // when
    let source = UUIDSource.current

    // then
    #expect(source.seed == expectedSeed)
  }

  @Test("It uses an explicit seed instead of the test's identity", .deterministicUUIDs(seed: 42))
  func explicitSeedOverrides() {
    // when
    let first = UUIDSource.current.next()

    // then
    #expect(UUIDSource.current.seed == 42)
    #expect(first == UUIDSource.seeded(42).next())
  }

  @Test("It leaves the random source in place for tests without the trait")
  func withoutTraitTheSourceIsRandom() {
    // when
    let source = UUIDSource.current

    // then
    #expect(source.seed == nil)
    #expect(source.next() != source.next())
  }

  @Test("It gives the same test the same seed every time it is asked")
  func sameTestSameSeed() throws {
    // given
    let test = try #require(Test.current)

    // when
    let seeds = (0..<3).map { _ in TestIdentity.seed(for: test, testCase: Test.Case.current) }

    // then
    #expect(Set(seeds).count == 1)
  }

  static let seenSeeds = Locked<[Int: UInt64]>([:])

  @Test(
    "It gives each parameterized case its own sequence", .deterministicUUIDs,
    arguments: 1...5)
  func parameterizedCasesDiffer(argument: Int) throws {
    // given
    let seed = try #require(UUIDSource.current.seed)

    // when
    let others = Self.seenSeeds.withLock { seen in
      seen[argument] = seed
      return seen.filter { $0.key != argument }
    }

    // then
    #expect(!others.values.contains(seed), "case \(argument) shares its seed with \(others)")
    #expect(seed != TestIdentity.seed(for: try #require(Test.current), testCase: nil))
  }

  @Test("It ignores memory addresses when fingerprinting a test case")
  func fingerprintDropsAddresses() throws {
    // given
    let testCase = try #require(Test.Case.current)

    // when
    let fingerprint = TestIdentity.caseFingerprint(testCase)

    // then
    #expect(!fingerprint.contains(" at $"))
    #expect(fingerprint == TestIdentity.caseFingerprint(testCase))
  }
}

@Suite("UUIDSource", .tags(.testSupport, .seams), .timeBudget(.seconds(5)))
struct UUIDSourceTests {
  @Test("It repeats the same sequence for the same seed", arguments: [0, 1, 42, UInt64.max])
  func sameSeedSameSequence(seed: UInt64) {
    // given
    let first = UUIDSource.seeded(seed)
    let second = UUIDSource.seeded(seed)

    // when
    let sequences = ((0..<8).map { _ in first.next() }, (0..<8).map { _ in second.next() })

    // then
    #expect(sequences.0 == sequences.1)
    #expect(Set(sequences.0).count == 8)
  }

  @Test("It gives different sequences for different seeds")
  func differentSeedsDiffer() {
    // when
    let uuids = (1...100).map { UUIDSource.seeded(UInt64($0)).next() }

    // then
    #expect(Set(uuids).count == 100)
  }

  @Test("It produces RFC 9562 version-4 UUIDs", arguments: 1...10)
  func seededUUIDsAreVersionFour(seed: UInt64) {
    // given
    let source = UUIDSource.seeded(seed)

    // when
    let uuid = source.next()

    // then
    #expect(uuid.uuid.6 >> 4 == 4, "version nibble of \(uuid)")
    #expect(uuid.uuid.8 >> 6 == 0b10, "variant bits of \(uuid)")
    #expect(UUID(uuidString: uuid.uuidString) == uuid)
  }

  @Test("A counting source gives UUID(0), UUID(1), … from where it starts")
  func countingSource() {
    // given
    let source = UUIDSource.counting(from: 9)

    // when
    let uuids = (0..<3).map { _ in source.next() }

    // then
    #expect(uuids == [UUID(9), UUID(10), UUID(11)])
    #expect(uuids.last?.uuidString == "00000000-0000-0000-0000-00000000000B")
    #expect(source.seed == nil)
  }
}
