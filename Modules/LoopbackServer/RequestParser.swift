/// Reads HTTP requests out of bytes held in memory, by the rules and limits the loopback server
/// applies to a connection.
///
/// The server reads from a socket; this reads from a buffer, so the request parser can be
/// checked on its own, by tests and by the fuzzer, with the bytes arriving in reads of any size.
/// Like the server, it reads requests one after the other and stops at the first one it refuses.
public struct RequestParser: Sendable, Hashable {
  /// What reading the bytes of one connection gave.
  public struct Result: Sendable, Hashable {
    /// The whole requests, in the order they came.
    public var requests: [ServerRequest]
    /// The answer the server refuses the next request with, if it refused one; nothing after it
    /// is read.
    public var rejection: Rejection?

    /// Creates a result.
    public init(requests: [ServerRequest], rejection: Rejection? = nil) {
      self.requests = requests
      self.rejection = rejection
    }
  }

  /// The limits the server would apply: header and body sizes and the methods it serves.
  public var limits: ServerLimits

  /// Creates a parser with the server's limits.
  public init(limits: ServerLimits = ServerLimits()) {
    self.limits = limits
  }

  /// Reads every request in `bytes`, as if they came `readSize` bytes per read (at least one);
  /// a request cut off by the end of the bytes is left out, as the server leaves it unanswered.
  public func parse(_ bytes: [UInt8], readSize: Int = 64 * 1024) -> Result {
    var reader = RequestReader(BufferSource(bytes, readSize: readSize), limits: limits)
    var result = Result(requests: [])
    while true {
      switch reader.next(sendContinue: { true }) {
      case .request(let request): result.requests.append(request)
      case .rejected(let rejection):
        result.rejection = rejection
        return result
      case .closed, .stalled: return result
      }
    }
  }
}
