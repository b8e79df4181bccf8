/// How much the loopback server accepts from a client, and how long it waits for one.
///
/// The defaults suit tests and local tools: generous for real clients, small enough that a
/// hostile or broken one is refused quickly.
public struct ServerLimits: Sendable, Hashable {
  /// The request line and header fields together, in bytes; more is answered `431`.
  public var maxHeaderBytes: Int
  /// A request body, in bytes; more is answered `413` (chunked bodies are counted as they come).
  public var maxBodyBytes: Int
  /// How long a request that has started may stall between two reads before the connection is
  /// closed without an answer; also how long a write to a client that does not read may wait.
  public var stallTimeout: Duration
  /// How long an open connection may sit idle between requests before the server closes it.
  public var idleTimeout: Duration
  /// How many connections may be open at once; more are closed as soon as they are accepted.
  public var maxConnections: Int
  /// The methods the server serves; a well-formed request with another method is answered
  /// `501`.
  public var methods: Set<String>

  /// Creates limits; every one has a default.
  public init(
    maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 8 * 1024 * 1024,
    stallTimeout: Duration = .seconds(5), idleTimeout: Duration = .seconds(60),
    maxConnections: Int = 256,
    methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
  ) {
    self.maxHeaderBytes = maxHeaderBytes
    self.maxBodyBytes = maxBodyBytes
    self.stallTimeout = stallTimeout
    self.idleTimeout = idleTimeout
    self.maxConnections = maxConnections
    self.methods = methods
  }
}
