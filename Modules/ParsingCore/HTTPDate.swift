import Foundation

/// Reads the dates HTTP headers carry, such as `Retry-After`, always in GMT: the preferred
/// fixed form and the two obsolete ones that recipients must still accept.
public enum HTTPDate {
  /// The date `text` names (`Wed, 25 Nov 2026 10:00:00 GMT`, `Wednesday, 25-Nov-26 10:00:00
  /// GMT` or `Wed Nov 25 10:00:00 2026`), or `nil` if it is not an HTTP date or names no real
  /// day.
  ///
  /// A two-digit year reads as the latest year with those digits that is at most 50 years
  /// after `now`, the day the text is read (today by default), as HTTP asks.
  public static func parse(_ text: String, now: Date = Date()) -> Date? {
    let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    switch words.count {
    case 6 where words[0].hasSuffix(",") && words[5] == "GMT":
      // Wed, 25 Nov 2026 10:00:00 GMT
      guard words[1].count == 2, words[3].count == 4, let year = Int64(words[3]) else {
        return nil
      }
      return date(year: year, month: words[2], day: words[1], time: words[4])
    case 4 where words[0].hasSuffix(",") && words[3] == "GMT":
      // Wednesday, 25-Nov-26 10:00:00 GMT
      let parts = words[1].split(separator: "-").map(String.init)
      guard parts.count == 3, parts[0].count == 2, parts[2].count == 2,
        let short = Int64(parts[2])
      else { return nil }
      return date(
        year: fullYear(short, now: now), month: parts[1], day: parts[0], time: words[2])
    case 5:
      // Wed Nov 25 10:00:00 2026 (a day below 10 is padded with a space)
      guard words[4].count == 4, let year = Int64(words[4]) else { return nil }
      return date(year: year, month: words[1], day: words[2], time: words[3])
    default:
      return nil
    }
  }

  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// A two-digit year as the latest year with those digits that is not more than 50 years
  /// after the year of `date`: one of the hundred years that end 50 years after it.
  private static func fullYear(_ short: Int64, now date: Date) -> Int64 {
    let today = Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    let latest = ISO8601Timestamp.civil(fromDays: today).year + 50
    let year = latest - latest % 100 + short
    return year > latest ? year - 100 : year
  }

  /// The instant of `time` (`HH:MM:SS`) on a day, in GMT, if every part is in range.
  private static func date(year: Int64, month name: String, day dayText: String, time: String)
    -> Date?
  {
    let clock = time.split(separator: ":", omittingEmptySubsequences: false)
    guard let month = months.firstIndex(of: name).map({ Int64($0 + 1) }),
      dayText.allSatisfy(\.isASCIIDigit), let day = Int64(dayText),
      clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
      let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
      (1...9999).contains(year),
      (1...ISO8601Timestamp.daysIn(month: month, year: year)).contains(day),
      hour < 24, minute < 60, second <= 60
    else { return nil }
    let days = ISO8601Timestamp.daysFromCivil(year: year, month: month, day: day)
    let seconds = ((days * 24 + hour) * 60 + minute) * 60 + min(second, 59)
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }
}

extension Character {
  /// Whether this is one of the digits 0 to 9.
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
