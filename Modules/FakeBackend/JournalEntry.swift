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
  /// The status answered, or `nil` if the request got no response.
  public let status: Int?
  /// The fault applied, if any.
  public let fault: Fault?

  /// Whether a route matched the request.
  public var matched: Bool { route != nil }

  /// Reads as `#3 POST /connections → 201` with the fault or `unmatched` added.
  public var description: String {
    var text = "#\(index) \(request) → \(status.map(String.init) ?? "no response")"
    if let fault { text += " [\(fault)]" }
    if !matched { text += " [unmatched]" }
    return text
  }
}
