/// Where production code gets random numbers: the system's generator in production, a seeded
/// sequence in tests and simulations, so that jitter and shuffles replay exactly.
///
/// Like ``UUIDSource``, components take a source and default to ``RandomSource/current``, which a
/// test or a simulation can bind for everything it runs.
public final class RandomSource: Sendable {
  private let generator: Locked<SeededRandomNumberGenerator>?

  /// The system's random numbers, the production default.
  public static let system = RandomSource(generator: nil)

  /// The source production code uses when it was not handed one.
  @TaskLocal public static var current: RandomSource = .system

  /// A source whose sequence is fixed by `seed`.
  public static func seeded(_ seed: UInt64) -> RandomSource {
    RandomSource(generator: Locked(SeededRandomNumberGenerator(seed: seed)))
  }

  private init(generator: Locked<SeededRandomNumberGenerator>?) {
    self.generator = generator
  }

  /// Whether the sequence is reproducible.
  public var isSeeded: Bool { generator != nil }

  /// The next 64 random bits.
  public func next() -> UInt64 {
    guard let generator else {
      var system = SystemRandomNumberGenerator()
      return system.next()
    }
    return generator.withLock { $0.next() }
  }

  /// A number in `0..<1`, evenly spread.
  public func unitInterval() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// A whole number in `range`, evenly spread.
  public func integer(in range: ClosedRange<Int>) -> Int {
    var generator = Drawing(source: self)
    return Int.random(in: range, using: &generator)
  }

  /// Draws from a source as a `RandomNumberGenerator`, for the standard library's `random(in:using:)`.
  private struct Drawing: RandomNumberGenerator {
    let source: RandomSource
    mutating func next() -> UInt64 { source.next() }
  }
}
