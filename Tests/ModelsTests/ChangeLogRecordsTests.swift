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

  @Test(
    "Overlaying writes the newer records, removes those a newer empty one clears, keeps the rest")
  func overlaid() {
    // given
    let (ann, bob, cat) = (make.user(name: "Ann"), make.user(name: "Bob"), make.user(name: "Cat"))
    var stored = ChangeLogRecords()
    stored.set(inserted(User.self), for: ann.id, of: User.self)
    stored.set(inserted(User.self), for: bob.id, of: User.self)
    var newer = ChangeLogRecords()
    newer.set(PendingChange<User>(), for: bob.id, of: User.self)
    newer.set(inserted(User.self), for: cat.id, of: User.self)

    // when
    let result = stored.overlaid(with: newer)

    // then
    #expect(Set(result[User.self].keys) == [ann.id, cat.id])
    #expect(result.count == 2)
  }
}
