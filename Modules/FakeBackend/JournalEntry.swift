import CourierAPI
import Transport

/// One request the fake received, in order, with what it did about it.
public struct JournalEntry: Sendable, Hashable, CustomStringConvertible {
  /// The position of the request among all the fake received, from 0.
  public let index: Int
  /// The request.
  public let request: FakeRequest
  /// The route that handled it, or `nil` if none matched.
  public let route: Route?
  /// The status the server answered, even where a fault kept the answer from the client (a lost
  /// response, a malformed body, a held answer); `nil` if the server never answered.
  public let status: Int?
  /// The fault applied, if any.
  public let fault: Fault?

  /// Whether a route matched the request.
  public var matched: Bool { route != nil }

  /// Whether the server answered with a success status, so carried out what the request asked,
  /// whether or not the answer reached the client.
  public var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }

  /// Reads as `#3 POST /connections → 201` with the fault or `unmatched` added.
  public var description: String {
    var text = "#\(index) \(request) → \(status.map(String.init) ?? "no response")"
    if let fault { text += " [\(fault)]" }
    if !matched { text += " [unmatched]" }
    return text
  }
}
