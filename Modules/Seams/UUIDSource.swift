import Foundation

/// Where production code gets new UUIDs: random in production, a seeded sequence in tests.
///
/// Components take a source as a dependency and default to ``UUIDSource/current``, the task-local
/// that TestSupport's `.deterministicUUIDs` trait seeds for each test. Seeded UUIDs are valid
/// RFC 9562 version-4 values: the version and variant bits are set like those of random ones.
///
/// Task-locals reach child tasks and `Task { }`, but not `Task.detached`, GCD blocks or callbacks
/// from Foundation's own threads; hand such code a source explicitly.
public final class UUIDSource: Sendable {
  private enum Seeding {
    case random
    case seeded(SeededRandomNumberGenerator, seed: UInt64)
    case deferred(@Sendable () -> UInt64)
    case counting(next: UInt64)
  }

  private let seeding: Locked<Seeding>

  /// The seed of a reproducible sequence, or `nil` for random UUIDs.
  ///
  /// A source made with ``seeded(computingSeed:)`` works its seed out here, on first use.
  public var seed: UInt64? {
    seeding.withLock { seeding in
      Self.resolve(&seeding)
      if case .seeded(_, let seed) = seeding { return seed }
      return nil
    }
  }

  /// A source of random UUIDs, the production default.
  public static let random = UUIDSource(seed: nil)

  /// The source production code uses when it was not handed one.
  @TaskLocal public static var current: UUIDSource = .random

  /// A source whose sequence is fixed by `seed`: the same seed always gives the same UUIDs.
  public static func seeded(_ seed: UInt64) -> UUIDSource {
    UUIDSource(seed: seed)
  }

  /// A seeded source whose seed is computed when it is first needed: tests that never draw a
  /// UUID never pay for working their seed out.
  public static func seeded(computingSeed seed: @escaping @Sendable () -> UInt64) -> UUIDSource {
    UUIDSource(seeding: .deferred(seed))
  }

  /// A source that counts: `00000000-0000-0000-0000-000000000000`, then `…-000000000001`, and
  /// so on from `first`, for tests whose failure messages should name ids a person can read.
  ///
  /// The ids are the same as TestSupport's `UUID(0)`, `UUID(1)`, …, so a test can write the id it
  /// expects. They are not version-4 UUIDs; a backend that checks the version refuses them.
  public static func counting(from first: UInt64 = 0) -> UUIDSource {
    UUIDSource(seeding: .counting(next: first))
  }

  private convenience init(seed: UInt64?) {
    self.init(
      seeding: seed.map { .seeded(SeededRandomNumberGenerator(seed: $0), seed: $0) } ?? .random)
  }

  private init(seeding: Seeding) {
    self.seeding = Locked(seeding)
  }

  private static func resolve(_ seeding: inout Seeding) {
    if case .deferred(let compute) = seeding {
      let seed = compute()
      seeding = .seeded(SeededRandomNumberGenerator(seed: seed), seed: seed)
    }
  }

  /// Returns the next UUID of the sequence.
  public func next() -> UUID {
    enum Drawn {
      case random
      case bits(UInt64, UInt64)
      case number(UInt64)
    }
    let drawn = seeding.withLock { seeding -> Drawn in
      Self.resolve(&seeding)
      switch seeding {
      case .seeded(var generator, let seed):
        let bits = (generator.next(), generator.next())
        seeding = .seeded(generator, seed: seed)
        return .bits(bits.0, bits.1)
      case .counting(let next):
        seeding = .counting(next: next &+ 1)
        return .number(next)
      case .random, .deferred:
        return .random
      }
    }
    switch drawn {
    case .random: return UUID()
    case .bits(let high, let low): return Self.versionFourUUID(high: high, low: low)
    case .number(let number): return Self.countedUUID(number)
    }
  }

  /// The UUID whose last 64 bits are `number`, big-endian, and whose first 64 bits are zero.
  static func countedUUID(_ number: UInt64) -> UUID {
    func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: number >> (56 - 8 * index)) }
    return UUID(
      uuid: (
        0, 0, 0, 0, 0, 0, 0, 0, byte(0), byte(1), byte(2), byte(3), byte(4), byte(5), byte(6),
        byte(7)
      ))
  }

  /// Returns a version-4 UUID made of the given 128 bits, with the version and variant bits set.
  static func versionFourUUID(high: UInt64, low: UInt64) -> UUID {
    let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
    let varianted = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
    func byte(_ word: UInt64, _ index: Int) -> UInt8 {
      UInt8(truncatingIfNeeded: word >> (56 - 8 * index))
    }
    return UUID(
      uuid: (
        byte(versioned, 0), byte(versioned, 1), byte(versioned, 2), byte(versioned, 3),
        byte(versioned, 4), byte(versioned, 5), byte(versioned, 6), byte(versioned, 7),
        byte(varianted, 0), byte(varianted, 1), byte(varianted, 2), byte(varianted, 3),
        byte(varianted, 4), byte(varianted, 5), byte(varianted, 6), byte(varianted, 7)
      )
    )
  }
}
