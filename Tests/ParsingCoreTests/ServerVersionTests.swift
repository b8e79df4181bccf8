import ParsingCore
import TestSupport
import Testing

@Suite("ServerVersion", .tags(.parsing))
struct ServerVersionTests {
  @Test(
    "It reads a header of decimal digits and refuses anything else",
    arguments: [
      ("12", 12), ("0", 0), (" 4 ", 4), ("", nil), ("-3", nil), ("+3", nil), ("1e3", nil),
      ("v2", nil),
    ] as [(String, Int?)])
  func header(text: String, expected: Int?) {
    // when
    let version = ServerVersion(header: text)

    // then
    #expect(version?.rawValue == expected)
  }

  @Test("Versions order as the server applied their changes, and a negative one does not exist")
  func ordering() throws {
    // given
    let first = try #require(ServerVersion(1))

    // when
    let next = first.next

    // then
    #expect(first < next)
    #expect(ServerVersion.zero < first)
    #expect(ServerVersion(-1) == nil)
  }
}
