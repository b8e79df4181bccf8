import Foundation

/// Reads and writes ISO 8601 timestamps without a date formatter.
///
/// Accepted: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1 to 9 digits (read to the nearest
/// millisecond, so that a timestamp read writes back as the same instant), then `Z`, `±HH:MM` or
/// `±HHMM`. Written: the backend's canonical form, `2026-11-21T10:00:00.000Z` (UTC,
/// milliseconds). Parsing works on the UTF-8 bytes directly, so no formatter is allocated at all.
public enum ISO8601Timestamp {
  /// The instant `text` names, or `nil` if it is not a valid timestamp.
  public static func parse(_ text: String) -> Date? {
    var copy = text
    return copy.withUTF8 { parse(bytes: $0) }
  }

  /// The canonical text of `date`: UTC with milliseconds.
  public static func format(_ date: Date) -> String {
    let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded())
    let (days, dayMilliseconds) = floorDivide(totalMilliseconds, 86_400_000)
    let (year, month, day) = civil(fromDays: days)
    let seconds = dayMilliseconds / 1_000
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3_600, 2)):"
      + "\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(dayMilliseconds % 1_000, 3))Z"
  }

  private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    var position = 0
    func number(_ count: Int) -> Int64? { digits(bytes, &position, count) }
    func expect(_ character: Unicode.Scalar) -> Bool {
      guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
      position += 1
      return true
    }
    guard let year = number(4), expect("-"), let month = number(2), expect("-"),
      let day = number(2), expect("T"), let hour = number(2), expect(":"),
      let minute = number(2), expect(":"), let second = number(2)
    else { return nil }
    guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
      hour < 24, minute < 60, second < 60
    else { return nil }
    var fraction = 0.0
    if expect(".") {
      var scale = 0.1
      let start = position
      while position < bytes.count, bytes[position] >= UInt8(ascii: "0"),
        bytes[position] <= UInt8(ascii: "9")
      {
        fraction += Double(bytes[position] - UInt8(ascii: "0")) * scale
        scale /= 10
        position += 1
      }
      guard (1...9).contains(position - start) else { return nil }
    }
    guard let offsetSeconds = zoneOffset(bytes, &position), position == bytes.count else {
      return nil
    }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
    // The backend's precision: a finer fraction would not survive being written back.
    let milliseconds = Int64((fraction * 1_000).rounded())
    return Date(timeIntervalSince1970: Double(seconds * 1_000 + milliseconds) / 1_000)
  }

  /// Reads exactly `count` decimal digits at `position`, advancing past them.
  private static func digits(
    _ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int, _ count: Int
  ) -> Int64? {
    guard position + count <= bytes.count else { return nil }
    var value: Int64 = 0
    for offset in 0..<count {
      let byte = bytes[position + offset]
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    position += count
    return value
  }

  /// Reads `Z`, `±HH:MM` or `±HHMM` at `position` and returns its offset from UTC in seconds.
  private static func zoneOffset(_ bytes: UnsafeBufferPointer<UInt8>, _ position: inout Int)
    -> Int64?
  {
    guard position < bytes.count else { return nil }
    let sign = bytes[position]
    position += 1
    if sign == UInt8(ascii: "Z") { return 0 }
    guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
      let hours = digits(bytes, &position, 2)
    else { return nil }
    if position < bytes.count, bytes[position] == UInt8(ascii: ":") { position += 1 }
    guard let minutes = digits(bytes, &position, 2), hours < 24, minutes < 60 else { return nil }
    return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3_600 + minutes * 60)
  }

  private static func isLeap(_ year: Int64) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  }

  /// How many days `month` (1 to 12) has in `year`.
  static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date, by Howard Hinnant's civil algorithm.
  static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01.
  static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    return (quotient, value - quotient * divisor)
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}
