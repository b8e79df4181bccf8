import Foundation
import ParsingCore
import TestSupport
import Testing

@Suite("HTTPDate", .tags(.parsing), .timeBudget(.seconds(5)))
struct HTTPDateTests {
  /// Midnight GMT on 1 January of `year`, or `nil` for a year that does not read.
  static func newYear(_ year: Int64) -> Date? {
    ISO8601Timestamp.parse("\(year)-01-01T00:00:00Z")
  }

  @Test(
    "It reads a two-digit year as the latest year with those digits at most 50 years after the day it reads it",
    arguments: [
      (2026, 76, 2076), (2026, 77, 1977), (2026, 25, 2025), (2027, 77, 2077), (2099, 0, 2100),
      (2060, 5, 2105), (2060, 11, 2011),
    ] as [(Int64, Int64, Int64)])
  func twoDigitYear(readIn year: Int64, digits: Int64, expected: Int64) throws {
    // given
    let text = "Friday, 01-Jan-\(digits < 10 ? "0" : "")\(digits) 00:00:00 GMT"

    // when
    let date = HTTPDate.parse(text, now: try #require(Self.newYear(year)))

    // then
    #expect(date == Self.newYear(expected))
  }
}
