import Foundation
import HTTPRequest
import Seams

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The real transport: sends requests with `URLSession` to a base URL, with a bearer token,
/// a request id, a limit on requests in flight, and retries of temporary failures.
///
/// - A 401 makes it ask the token provider for a new token and retry once.
/// - Temporary failures are retried only when the caller asks for it
///   (``SendOptions/retriesTemporaryFailures``) and only for idempotent methods, with exponential
///   backoff and jitter that honours `Retry-After`; waits happen on the injected
///   `TimeSource`.
/// - Logs name the method, path, request id and status, and never a token.
public final class URLSessionTransport: TransportSession {
  /// What a transport needs to know besides its collaborators.
  public struct Configuration: Sendable {
    /// The backend's URL; request paths are appended to its path.
    public var baseURL: URL
    /// How many requests may be in flight at once; the rest wait in order.
    public var maxConcurrentRequests: Int
    /// How temporary failures are retried.
    public var retry: RetryPolicy
    /// Whether a connection is kept open for the next request (`true`, the default), or each
    /// request asks the server to close its connection after answering (`Connection: close`).
    ///
    /// On Linux, `URLSession` sends a request again on a new connection when a kept-open one
    /// closes without an answer, but cannot send the body again: a lost answer to a request with
    /// a body is then reported only when the server gives up waiting for that body, seconds
    /// later. Without reuse, every request has a connection of its own, and a lost answer is
    /// reported as soon as the connection closes, at the cost of opening one per request.
    public var reusesConnections: Bool

    /// Creates a configuration.
    public init(
      baseURL: URL, maxConcurrentRequests: Int = 6, retry: RetryPolicy = RetryPolicy(),
      reusesConnections: Bool = true
    ) {
      self.baseURL = baseURL
      self.maxConcurrentRequests = maxConcurrentRequests
      self.retry = retry
      self.reusesConnections = reusesConnections
    }
  }

  /// The configuration it was made with.
  public let configuration: Configuration
  private let session: URLSession
  private let tokens: (any AccessTokenProvider)?
  private let time: any TimeSource
  private let requestIDs: UUIDSource
  private let random: RandomSource
  private let limiter: ConcurrencyLimiter
  private let logger = CourierLogger(category: "transport")

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - configuration: The backend's base URL, how many requests may be in flight, and retries.
  ///   - session: The URL session to send with.
  ///   - tokens: Where bearer tokens come from; `nil` sends no `Authorization` header.
  ///   - time: The clock backoff and expiry are measured on.
  ///   - requestIDs: Where the `X-Request-ID` of each request comes from.
  ///   - random: Where the jitter of backoff waits comes from; the task's current source by default.
  public init(
    configuration: Configuration, session: URLSession, tokens: (any AccessTokenProvider)? = nil,
    time: any TimeSource = SystemTimeSource(), requestIDs: UUIDSource = .random,
    random: RandomSource = .current
  ) {
    self.configuration = configuration
    self.session = session
    self.tokens = tokens
    self.time = time
    self.requestIDs = requestIDs
    self.random = random
    self.limiter = ConcurrencyLimiter(limit: configuration.maxConcurrentRequests)
  }

  /// How many requests are in flight, and how many wait for a slot.
  public var load: (inFlight: Int, queued: Int) {
    let counts = limiter.counts
    return (counts.running, counts.waiting)
  }

  /// Sends `request`, queueing for a slot and refreshing the token once on 401; when the options
  /// allow it, temporary failures of idempotent methods are retried until the expiry.
  ///
  /// The expiry covers everything: the wait for a slot, every attempt and every backoff. A
  /// request still waiting or in flight when it passes is cancelled, on the wire too, and the
  /// send throws ``TransportError/expired(after:)``.
  public func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    let outcome = await TimeLimit.run(options.expiry, on: time) {
      () -> Result<TransportResponse, TransportError> in
      do throws(TransportError) {
        return .success(try await self.attempts(request, options: options))
      } catch {
        return .failure(error)
      }
    }
    guard let outcome else { throw .expired(after: options.expiry) }
    return try outcome.get()
  }

  /// Sends `request` until it succeeds, fails for good, or has no time left for another try.
  private func attempts(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    let expiry = options.expiry
    let deadline = time.now() + expiry
    do {
      try await limiter.acquire()
    } catch {
      throw .cancelled
    }
    defer { limiter.release() }
    let requestID = requestIDs.next().uuidString.lowercased()
    var attempt = 1
    var refreshed = false
    var token = try await currentToken()
    while true {
      guard time.now() < deadline else { throw .expired(after: expiry) }
      let outcome = await perform(request, requestID: requestID, token: token, attempt: attempt)
      if case .success(let response) = outcome, response.status == 401, !refreshed,
        let tokens, let rejected = token
      {
        refreshed = true
        logger.info(
          "\(request.method.rawValue) \(request.path) [\(requestID)] got 401; refreshing the token")
        do {
          token = try await tokens.refreshToken(rejected: rejected)
        } catch {
          throw .unauthenticated("the backend refused the token, and no new one came: \(error)")
        }
        continue
      }
      let temporary: Bool
      var retryAfter: Duration?
      switch outcome {
      case .success(let response):
        temporary = response.responseClass == .temporary
        retryAfter = response.retryAfter?.delay(from: Date())
      case .failure(let error):
        temporary = error.responseClass == .temporary
      }
      guard temporary, options.retriesTemporaryFailures, request.method.isIdempotent,
        attempt < configuration.retry.maxAttempts
      else {
        return try outcome.get()
      }
      let unit = random.unitInterval()
      let wait = configuration.retry.delay(
        afterAttempt: attempt, unit: unit, retryAfter: retryAfter)
      guard time.now() + wait < deadline else { throw .expired(after: expiry) }
      logger.info(
        "\(request.method.rawValue) \(request.path) [\(requestID)] attempt \(attempt) failed "
          + "temporarily; retrying in \(wait)")
      do {
        try await time.sleep(for: wait)
      } catch {
        throw .cancelled
      }
      attempt += 1
    }
  }

  private func currentToken() async throws(TransportError) -> String? {
    guard let tokens else { return nil }
    do {
      return try await tokens.token()
    } catch {
      throw .unauthenticated("no access token: \(error)")
    }
  }

  private func perform(
    _ request: HTTPRequest, requestID: String, token: String?, attempt: Int
  ) async -> Result<TransportResponse, TransportError> {
    var urlRequest: URLRequest
    do {
      urlRequest = try request.urlRequest(relativeTo: configuration.baseURL)
    } catch {
      return .failure(.invalidRequest("\(error)"))
    }
    urlRequest.setValue(requestID, forHTTPHeaderField: "X-Request-ID")
    if let token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if !configuration.reusesConnections {
      urlRequest.setValue("close", forHTTPHeaderField: "Connection")
    }
    logger.debug(
      "\(request.method.rawValue) \(request.path) [\(requestID)] attempt \(attempt), headers: "
        + Redaction.describe(urlRequest.allHTTPHeaderFields ?? [:]))
    do {
      let (data, response) = try await session.data(for: urlRequest)
      guard let http = response as? HTTPURLResponse else {
        return .failure(.invalidRequest("the response is not HTTP"))
      }
      var headers: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { headers[name] = value }
      }
      logger.info("\(request.method.rawValue) \(request.path) [\(requestID)] → \(http.statusCode)")
      return .success(TransportResponse(status: http.statusCode, headers: headers, body: data))
    } catch is CancellationError {
      return .failure(.cancelled)
    } catch let error as URLError {
      let failure = TransportError.network(NetworkFailure(error.code))
      if error.code == .cancelled { return .failure(.cancelled) }
      logger.warning("\(request.method.rawValue) \(request.path) [\(requestID)] failed: \(failure)")
      return .failure(failure)
    } catch {
      return .failure(.network(.other(code: -1)))
    }
  }
}

extension NetworkFailure {
  /// The failure a `URLError` code stands for.
  public init(_ code: URLError.Code) {
    switch code {
    case .networkConnectionLost: self = .connectionLost
    case .timedOut: self = .timedOut
    case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: self = .offline
    case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed: self = .cannotConnect
    default: self = .other(code: code.rawValue)
    }
  }

  /// The `URLError` code that stands for this failure.
  public var urlErrorCode: URLError.Code {
    switch self {
    case .connectionLost: .networkConnectionLost
    case .timedOut: .timedOut
    case .offline: .notConnectedToInternet
    case .cannotConnect: .cannotConnectToHost
    case .other(let code): URLError.Code(rawValue: code) ?? .unknown
    }
  }
}

/// Writes headers for logs with credentials hidden.
public enum Redaction {
  /// Headers whose values never reach a log.
  public static let secretHeaders: Set<String> = ["authorization", "cookie", "set-cookie"]

  /// `headers` as `Name: value` pairs sorted by name, with the value of every secret header
  /// replaced by `<redacted>` (a bearer token keeps its scheme: `Bearer <redacted>`).
  public static func describe(_ headers: [String: String]) -> String {
    headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
      guard secretHeaders.contains(name.lowercased()) else { return "\(name): \(value)" }
      let scheme = value.split(separator: " ").first.map { "\($0) " } ?? ""
      return "\(name): \(value.contains(" ") ? scheme : "")<redacted>"
    }.joined(separator: ", ")
  }
}
