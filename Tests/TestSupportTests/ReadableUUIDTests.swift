import Foundation
import TestSupport
import Testing

@Suite("UUID+Readable", .tags(.testSupport), .timeBudget(.seconds(5)))
struct ReadableUUIDTests {
  @Test(
    "A number becomes an id that reads as that number",
    arguments: zip(
      [0, 1, 12, 0x1_0000_0000, UInt64.max],
      [
        "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
        "00000000-0000-0000-0000-00000000000C", "00000000-0000-0000-0000-000100000000",
        "00000000-0000-0000-FFFF-FFFFFFFFFFFF",
      ]))
  func readable(number: UInt64, expected: String) {
    // when
    let id = UUID(number)

    // then
    #expect(id.uuidString == expected)
  }

  @Test("Different numbers give different ids, and ids order like their numbers")
  func ordered() {
    // when
    let ids = (1...20).map { UUID(UInt64($0)) }

    // then
    #expect(Set(ids).count == 20)
    #expect(ids.map(\.uuidString) == ids.map(\.uuidString).sorted())
  }
}
