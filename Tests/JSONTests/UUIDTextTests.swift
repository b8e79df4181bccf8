import Foundation
import JSON
import TestSupport
import Testing

@Suite("UUID text", .tags(.encoding, .parsing), .timeBudget(.seconds(5)))
struct UUIDTextTests {
  @Test("It writes what Foundation writes, lowercased, and reads it back", arguments: 0..<50)
  func roundTrip(_ index: Int) throws {
    // given
    let id = UUIDSource.seeded(UInt64(index)).next()

    // when
    let text = id.lowercasedText

    // then
    #expect(text == id.uuidString.lowercased())
    #expect(UUID(text: text) == id)
    #expect(UUID(text: id.uuidString) == id)
  }

  @Test(
    "It refuses anything but 8-4-4-4-12 hexadecimal digits",
    arguments: [
      "", "00000000-0000-4000-8000-00000000000", "00000000-0000-4000-8000-0000000000001",
      "000000000-000-4000-8000-000000000001", "g0000000-0000-4000-8000-000000000001",
      "00000000_0000_4000_8000_000000000001", "{00000000-0000-4000-8000-000000000001}",
    ])
  func refuses(_ text: String) {
    // when
    let id = UUID(text: text)

    // then
    #expect(id == nil)
    #expect(UUID(uuidString: text) == nil)
  }
}
