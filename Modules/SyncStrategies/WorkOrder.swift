import Foundation
import Models

/// The order work goes in line in: by the strategy's order, then by id.
///
/// A survey sorts every pending object of an entity, so it sorts small keys (the order and the
/// id's `UUID.byteOrder`, which compares as `UUID`'s `<` does) and moves each piece
/// of work once, rather than copying work values, with their references, through the sort.
enum WorkOrder {
  /// `work` in line: by order, then by id.
  static func sorted(_ work: [Work]) -> [Work] {
    guard work.count > 1 else { return work }
    let places = work.indices.map { (order: work[$0].order, id: work[$0].object.id.byteOrder) }
    return work.indices.sorted {
      (places[$0].order, places[$0].id.0, places[$0].id.1)
        < (places[$1].order, places[$1].id.0, places[$1].id.1)
    }.map { work[$0] }
  }
}
