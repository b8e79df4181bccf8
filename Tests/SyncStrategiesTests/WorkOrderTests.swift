import Foundation
import Models
import Seams
import TestSupport
import Testing

@testable import SyncStrategies

@Suite("WorkOrder", .tags(.sync, .generated), .courier(timeBudget: .seconds(5)))
struct WorkOrderTests {
  @Test(
    "It lines work up by order, then by id exactly as UUID compares ids",
    arguments: [1, 2, 3] as [UInt64])
  func linesUpLikeUUIDComparison(seed: UInt64) {
    // given work with few distinct orders and ids that often share leading or trailing bytes
    var random = SeededRandomNumberGenerator(seed: seed)
    let prefix = UUID(uuid: Self.bytes(&random)).uuid
    let work = (0..<500).map { _ -> Work in
      var bytes = Self.bytes(&random)
      if Bool.random(using: &random) {
        (bytes.0, bytes.1, bytes.2) = (prefix.0, prefix.1, prefix.2)
      }
      if Bool.random(using: &random) { (bytes.7, bytes.8) = (prefix.7, prefix.8) }
      return Work(
        object: ObjectReference(Message.entityName, UUID(uuid: bytes)), kind: .insert,
        keys: KeySet([], of: Message.self), track: 0,
        order: Double(Int.random(in: 0..<3, using: &random)))
    }

    // when
    let lined = WorkOrder.sorted(work)

    // then
    let expected = work.sorted {
      $0.order != $1.order ? $0.order < $1.order : $0.object.id < $1.object.id
    }
    #expect(lined.map(\.object.id) == expected.map(\.object.id))
  }

  /// Sixteen random bytes.
  private static func bytes(_ random: inout SeededRandomNumberGenerator) -> uuid_t {
    let (high, low) = (random.next(), random.next())
    func byte(_ value: UInt64, _ index: Int) -> UInt8 {
      UInt8(truncatingIfNeeded: value >> (8 * index))
    }
    return (
      byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5),
      byte(high, 6), byte(high, 7), byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3),
      byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)
    )
  }
}
