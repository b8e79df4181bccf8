import Foundation

/// Pending-change records of any entities, by object: what a store keeps of the change log, and
/// what a save tells it to write.
///
/// In a save, an empty record tells the store to remove the object's record.
package struct ChangeLogRecords: Sendable, Equatable {
  private var entities = EntityMap()

  /// No records.
  package init() {}

  /// The records of `type`, by object id.
  package subscript<Object: ModelObject>(_ type: Object.Type) -> [UUID: PendingChange<Object>] {
    entities[RecordSlot<Object>.self].records
  }

  /// Sets the record of the object `id` of `type`.
  package mutating func set<Object: ModelObject>(
    _ record: PendingChange<Object>, for id: UUID, of type: Object.Type
  ) {
    entities.modify(RecordSlot<Object>.self) { $0.records[id] = record }
  }

  /// The entities that have records, ordered by name.
  var objectTypes: [any ModelObject.Type] { entities.objectTypes }

  /// How many records there are, of every entity.
  package var count: Int {
    entities.slots.values.reduce(0) { $0 + (($1 as? any RecordCounting)?.recordCount ?? 0) }
  }

  /// Whether there are no records.
  package var isEmpty: Bool { count == 0 }

  /// The same records without the empty ones, as a store that removed those holds them.
  package var withoutEmptyRecords: ChangeLogRecords {
    var kept = ChangeLogRecords()
    for slot in entities.slots.values {
      (slot as? any RecordCounting)?.copy(into: &kept, keepingEmpty: false)
    }
    return kept
  }

  /// These records with `newer` written over them, record by record, an empty one removing the
  /// object's record: what a store holds after a save that wrote `newer`.
  package func overlaid(with newer: ChangeLogRecords) -> ChangeLogRecords {
    var result = self
    result.overlay(with: newer)
    return result
  }

  /// Writes `newer` over these records in place, record by record, an empty one removing the
  /// object's record.
  ///
  /// It costs as much as `newer` has records, however many these hold, so a store that keeps
  /// many pending changes does not pay for all of them at every save. (``overlaid(with:)`` on a
  /// value that is kept as well copies it first.)
  package mutating func overlay(with newer: ChangeLogRecords) {
    for slot in newer.entities.slots.values {
      (slot as? any RecordCounting)?.write(over: &self)
    }
  }

  /// Changes the records of `type` in place, with one lookup of the entity.
  mutating func modifyRecords<Object: ModelObject>(
    of type: Object.Type, _ body: (inout [UUID: PendingChange<Object>]) -> Void
  ) {
    entities.modify(RecordSlot<Object>.self) { body(&$0.records) }
  }

  /// Records compare equal when their non-empty records are the same.
  package static func == (lhs: Self, rhs: Self) -> Bool {
    let left = lhs.withoutEmptyRecords.entities.slots
    let right = rhs.withoutEmptyRecords.entities.slots
    guard Set(left.keys) == Set(right.keys) else { return false }
    return left.allSatisfy { key, slot in
      (slot as? any RecordCounting)?.isEqual(to: right[key]) ?? false
    }
  }
}

/// The records of one entity.
struct RecordSlot<Object: ModelObject>: EntitySlot {
  var records: [UUID: PendingChange<Object>] = [:]
}

/// What ``ChangeLogRecords`` asks of a slot without knowing its entity.
protocol RecordCounting {
  var recordCount: Int { get }
  func copy(into records: inout ChangeLogRecords, keepingEmpty: Bool)
  func write(over records: inout ChangeLogRecords)
  func isEqual(to other: (any EntitySlot)?) -> Bool
}

extension RecordSlot: RecordCounting {
  var recordCount: Int { records.count }

  func copy(into target: inout ChangeLogRecords, keepingEmpty: Bool) {
    for (id, record) in records where keepingEmpty || !record.isEmpty {
      target.set(record, for: id, of: Object.self)
    }
  }

  func write(over target: inout ChangeLogRecords) {
    target.modifyRecords(of: Object.self) { existing in
      for (id, record) in records {
        existing[id] = record.isEmpty ? nil : record
      }
    }
  }

  func isEqual(to other: (any EntitySlot)?) -> Bool {
    (other as? RecordSlot<Object>)?.records == records
  }
}
