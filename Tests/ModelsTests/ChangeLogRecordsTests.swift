import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("ChangeLogRecords", .tags(.models), .courier(timeBudget: .seconds(5)))
struct ChangeLogRecordsTests {
  let make = ModelFactory()

  func inserted<Object: ModelObject>(_ type: Object.Type) -> PendingChange<Object> {
    var record = PendingChange<Object>()
    record.isInserted = true
    return record
  }

  /// Ann and Bob stored as inserted; newer records clear Bob and insert Cat.
  func storedAndNewer() -> (
    stored: ChangeLogRecords, newer: ChangeLogRecords, ann: UUID, bob: UUID, cat: UUID
  ) {
    let (ann, bob, cat) = (make.user(name: "Ann"), make.user(name: "Bob"), make.user(name: "Cat"))
    var stored = ChangeLogRecords()
    stored.set(inserted(User.self), for: ann.id, of: User.self)
    stored.set(inserted(User.self), for: bob.id, of: User.self)
    var newer = ChangeLogRecords()
    newer.set(PendingChange<User>(), for: bob.id, of: User.self)
    newer.set(inserted(User.self), for: cat.id, of: User.self)
    return (stored, newer, ann.id, bob.id, cat.id)
  }

  @Test(
    "Overlaying writes the newer records, removes those a newer empty one clears, keeps the rest")
  func overlaid() {
    // given
    let given = storedAndNewer()

    // when
    let result = given.stored.overlaid(with: given.newer)

    // then
    #expect(Set(result[User.self].keys) == [given.ann, given.cat])
    #expect(result.count == 2)
    #expect(Set(given.stored[User.self].keys) == [given.ann, given.bob])
  }

  @Test("Overlaying in place gives what the overlaid copy holds")
  func overlayInPlace() {
    // given
    let given = storedAndNewer()
    let expected = given.stored.overlaid(with: given.newer)
    var stored = given.stored

    // when
    stored.overlay(with: given.newer)

    // then
    #expect(stored == expected)
    #expect(stored.count == 2)
  }
}
