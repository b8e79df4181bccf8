import Foundation
import Models

/// Where a piece of work goes in line: by the strategy's order, then by id, as two whole numbers
/// that compare as the id's bytes do.
///
/// Sorting these, rather than the work itself, copies no references and hashes nothing: a
/// survey sorts every pending object of an entity.
struct WorkOrder: Comparable {
  let order: Double
  let high: UInt64
  let low: UInt64
  /// The work's place in the list being sorted.
  let index: Int

  /// The place in line of `work`, found at `index`.
  init(_ work: Work, at index: Int) {
    order = work.order
    let bytes = work.object.id.uuid
    high =
      UInt64(bytes.0) << 56 | UInt64(bytes.1) << 48 | UInt64(bytes.2) << 40
      | UInt64(bytes.3) << 32 | UInt64(bytes.4) << 24 | UInt64(bytes.5) << 16
      | UInt64(bytes.6) << 8 | UInt64(bytes.7)
    low =
      UInt64(bytes.8) << 56 | UInt64(bytes.9) << 48 | UInt64(bytes.10) << 40
      | UInt64(bytes.11) << 32 | UInt64(bytes.12) << 24 | UInt64(bytes.13) << 16
      | UInt64(bytes.14) << 8 | UInt64(bytes.15)
    self.index = index
  }

  static func < (lhs: WorkOrder, rhs: WorkOrder) -> Bool {
    (lhs.order, lhs.high, lhs.low) < (rhs.order, rhs.high, rhs.low)
  }

  /// `work` in line: by order, then by id.
  static func sorted(_ work: [Work]) -> [Work] {
    let places = work.indices.map { WorkOrder(work[$0], at: $0) }.sorted()
    return places.map { work[$0.index] }
  }
}
