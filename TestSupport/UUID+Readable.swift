import Foundation

extension UUID {
  /// A readable, deterministic id for fixtures: `UUID(1)` is `00000000-0000-0000-0000-000000000001`.
  ///
  /// Failure messages then name ids a person can tell apart, and a test states which object is
  /// which without drawing from a generator.
  public init(_ number: UInt64) {
    func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: number >> (56 - 8 * index)) }
    self.init(
      uuid: (
        0, 0, 0, 0, 0, 0, 0, 0, byte(0), byte(1), byte(2), byte(3), byte(4), byte(5), byte(6),
        byte(7)
      ))
  }
}
