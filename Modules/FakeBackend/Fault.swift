import CourierAPI
import Foundation
import JSON
import Transport

/// Something that goes wrong on purpose, deterministically, when a request matches a rule.
public enum Fault: Sendable, Hashable, CustomStringConvertible {
  /// Answer with this status and an error body, without acting on the request; with
  /// `retryAfter`, the answer carries a `Retry-After` header of that many seconds.
  ///
  /// A refusal for good (a `4xx` other than `401`, `408` and `429`) is not injected into a
  /// request that repeats an idempotency key the server answered: that repeat gets the first
  /// answer, as the contract says.
  case status(Int, retryAfter: Int? = nil)
  /// Fail with a network error before the request reaches the server.
  case network(NetworkFailure)
  /// Wait this long on the fake's time source, then handle the request normally.
  case delay(Duration)
  /// Hold the request until the test releases it, then handle it normally.
  case park
  /// Handle the request at once, then hold its answer until the test releases it: answers
  /// that overtake each other on their way back, each telling of the state it was worked out
  /// against. A held answer can be dropped (the request stays applied) but not refused.
  case holdAnswer
  /// Act on the request, then fail with `connectionLost`: the duplicate-send trap.
  case loseResponse
  /// Act on the request, then answer with a body that is not JSON.
  case malformedBody

  /// Names the fault.
  public var description: String {
    switch self {
    case .status(let status, nil): "status \(status)"
    case .status(let status, let seconds?): "status \(status), Retry-After \(seconds)"
    case .network(let failure): "network: \(failure)"
    case .delay(let duration): "delay \(duration)"
    case .park: "park"
    case .holdAnswer: "hold the answer"
    case .loseResponse: "lose the response"
    case .malformedBody: "malformed body"
    }
  }
}

/// Which requests a fault rule applies to.
public struct RequestMatcher: Sendable, Hashable, CustomStringConvertible {
  /// The method, or `nil` for any.
  public let method: String?
  /// The path pattern: segments, where `*` matches any one segment and a trailing `**` any rest.
  ///
  /// A segment that reads as a UUID is kept in lower case, as clients write ids, so that a
  /// pattern made with `"\(id)"` (whose text is upper case) matches the same id.
  public let pattern: [String]
  /// A method the matcher leaves alone, or `nil`.
  public let excludedMethod: String?

  /// Matches `method` (any if `nil`) on paths like `/conversations/*/messages`.
  public init(_ method: String? = nil, _ path: String) {
    self.method = method?.uppercased()
    self.pattern = path.split(separator: "/").map { segment in
      UUID(text: String(segment))?.lowercasedText ?? String(segment)
    }
    self.excludedMethod = nil
  }

  private init(excluding method: String) {
    self.method = nil
    self.pattern = ["**"]
    self.excludedMethod = method.uppercased()
  }

  /// Matches the requests of one route of the backend contract, such as `.postMessage`.
  public init(_ route: Route) {
    let parts = route.rawValue.split(separator: " ", maxSplits: 1)
    let path = parts.count == 2 ? String(parts[1]) : route.rawValue
    let pattern = path.split(separator: "/").map { $0.hasPrefix("{") ? "*" : String($0) }
    self.init(parts.count == 2 ? String(parts[0]) : nil, "/" + pattern.joined(separator: "/"))
  }

  /// Matches every request.
  public static let any = RequestMatcher(nil, "/**")

  /// Matches every request but those of `method`: `.any(except: "DELETE")` leaves deletions
  /// alone.
  public static func any(except method: String) -> RequestMatcher {
    RequestMatcher(excluding: method)
  }

  /// Whether `request` matches.
  public func matches(_ request: FakeRequest) -> Bool {
    if let method, method != request.method { return false }
    if let excludedMethod, excludedMethod == request.method { return false }
    var index = 0
    for part in pattern {
      if part == "**" { return true }
      guard index < request.segments.count,
        part == "*" || Self.segment(request.segments[index], is: part)
      else {
        return false
      }
      index += 1
    }
    return index == request.segments.count
  }

  /// Whether a request's path segment is the pattern's `part`: the same text, or, for an id,
  /// the same id in another case.
  private static func segment(_ segment: String, is part: String) -> Bool {
    segment == part || UUID(text: segment)?.lowercasedText == part
  }

  /// Reads as `POST /connections`, or `* /** but DELETE`.
  public var description: String {
    let base = "\(method ?? "*") /\(pattern.joined(separator: "/"))"
    return excludedMethod.map { "\(base) but \($0)" } ?? base
  }
}

/// A rule of the fake: which requests it applies to and which fault each of them gets.
///
/// The faults are a small scenario: the first matching request gets the first fault, the second
/// the second, and so on (`nil` lets a request through untouched); after the last step the rule
/// is spent, unless it repeats its last step forever.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
  /// Which requests the rule applies to.
  public let matcher: RequestMatcher
  /// The faults, in the order matching requests meet them.
  public let steps: [Fault?]
  /// Whether the last step applies forever once reached.
  public let repeatsLastStep: Bool

  /// Reads as `POST /connections: status 503, then through` with `, always` when the last step
  /// repeats.
  public var description: String {
    let faults = steps.map { $0.map(String.init(describing:)) ?? "through" }
    return "\(matcher): " + faults.joined(separator: ", then ")
      + (repeatsLastStep ? ", always" : "")
  }

  /// A rule of explicit steps.
  public init(_ matcher: RequestMatcher, steps: [Fault?], repeatsLastStep: Bool = false) {
    self.matcher = matcher
    self.steps = steps
    self.repeatsLastStep = repeatsLastStep
  }

  /// `fault` on the next matching request only.
  public static func once(_ matcher: RequestMatcher, _ fault: Fault) -> FaultRule {
    FaultRule(matcher, steps: [fault])
  }

  /// `fault` on the next `count` matching requests.
  public static func times(_ count: Int, _ matcher: RequestMatcher, _ fault: Fault) -> FaultRule {
    FaultRule(matcher, steps: Array(repeating: fault, count: max(count, 0)))
  }

  /// `fault` on every matching request.
  public static func always(_ matcher: RequestMatcher, _ fault: Fault) -> FaultRule {
    FaultRule(matcher, steps: [fault], repeatsLastStep: true)
  }
}

/// What the network between a client and the fake does to requests.
public enum NetworkCondition: Sendable, Hashable {
  /// Requests go through.
  case online
  /// Requests fail at once with `NetworkFailure.offline`, as with no connection at all.
  case offline
  /// Requests hang until their expiry, then expire, as on a network that drops every packet.
  case unresponsive
}
