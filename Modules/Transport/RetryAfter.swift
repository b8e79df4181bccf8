import Foundation
import ParsingCore

/// When a backend asked a client to try again (a `Retry-After` header): after a number of
/// seconds, or at a date.
public enum RetryAfter: Sendable, Hashable {
  /// Try again after this many seconds.
  case seconds(Int)
  /// Try again at this date.
  case date(Date)

  /// Reads a header value: digits for seconds, or an HTTP date in any of the three forms HTTP
  /// allows (`Wed, 25 Nov 2026 10:00:00 GMT`, `Wednesday, 25-Nov-26 10:00:00 GMT`,
  /// `Wed Nov 25 10:00:00 2026`); `nil` for anything else.
  public init?(headerValue: String) {
    let value = headerValue.trimmingCharacters(in: .whitespaces)
    if !value.isEmpty,
      value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    {
      guard let seconds = Int(value) else { return nil }
      self = .seconds(seconds)
    } else if let date = HTTPDate.parse(value) {
      self = .date(date)
    } else {
      return nil
    }
  }

  /// How long to wait from `now`: the seconds, or the time until the date, never negative.
  public func delay(from now: Date) -> Duration {
    switch self {
    case .seconds(let seconds): .seconds(seconds)
    case .date(let date): .seconds(max(0, date.timeIntervalSince(now).rounded(.up)))
    }
  }
}

extension TransportResponse {
  /// The `Retry-After` the response carries, if it has one that reads.
  public var retryAfter: RetryAfter? {
    header("Retry-After").flatMap(RetryAfter.init(headerValue:))
  }
}
