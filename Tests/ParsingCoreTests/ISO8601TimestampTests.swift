import Foundation
import ParsingCore
import TestSupport
import Testing

@Suite("ISO8601Timestamp", .tags(.parsing), .timeBudget(.seconds(5)))
struct ISO8601TimestampTests {
  @Test(
    "It writes the canonical UTC form with milliseconds",
    arguments: zip(
      [0, 1_795_255_200.25, -86_400.5, 951_782_400, 4_102_444_799.999] as [TimeInterval],
      [
        "1970-01-01T00:00:00.000Z", "2026-11-21T10:00:00.250Z", "1969-12-30T23:59:59.500Z",
        "2000-02-29T00:00:00.000Z", "2099-12-31T23:59:59.999Z",
      ]))
  func formatsCanonically(seconds: TimeInterval, expected: String) {
    // when
    let text = ISO8601Timestamp.format(Date(timeIntervalSince1970: seconds))

    // then
    #expect(text == expected)
  }

  @Test(
    "It reads back every millisecond it writes", .tags(.generated),
    arguments: 1...5 as ClosedRange<UInt64>)
  func parseInvertsFormat(seed: UInt64) {
    // given
    var generator = SeededRandomNumberGenerator(seed: seed)
    let dates = (0..<200).map { _ in
      Date(
        timeIntervalSince1970: Double(
          Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)) / 1_000)
    }

    // when
    let reparsed = dates.map { ISO8601Timestamp.parse(ISO8601Timestamp.format($0)) }

    // then
    #expect(reparsed == dates)
  }

  @Test(
    "It accepts 29 February only in leap years",
    arguments: zip([2024, 2000, 2026, 1900], [true, true, false, false]))
  func leapDay(year: Int, valid: Bool) {
    // when
    let date = ISO8601Timestamp.parse("\(year)-02-29T00:00:00Z")

    // then
    #expect((date != nil) == valid)
  }

  @Test(
    "A fraction finer than a millisecond reads as the nearest millisecond, and writes back as the same instant",
    arguments: zip(
      ["2026-01-02T00:34:05.0678Z", "2026-01-02T00:34:05.123456789Z", "2026-01-02T00:34:05.9996Z"],
      ["2026-01-02T00:34:05.068Z", "2026-01-02T00:34:05.123Z", "2026-01-02T00:34:06.000Z"]))
  func subMillisecondFraction(text: String, canonical: String) throws {
    // when
    let date = try #require(ISO8601Timestamp.parse(text))
    let written = ISO8601Timestamp.format(date)

    // then
    #expect(written == canonical)
    #expect(ISO8601Timestamp.parse(written) == date)
  }
}
