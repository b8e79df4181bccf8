import Foundation

/// Reads requests one after the other from a connection's bytes, enforcing the server's limits.
///
/// It keeps what it read past the end of one request for the next, so a client may send several
/// requests without waiting for answers.
struct RequestReader<Source: ByteSource> {
  /// What reading the next request gave.
  enum Outcome: Equatable {
    /// A whole request.
    case request(ServerRequest)
    /// A request the server refuses with this answer; the connection closes after it.
    case rejected(Rejection)
    /// The client closed the connection, or sent nothing before the idle timeout, between
    /// requests.
    case closed
    /// The client stopped sending in the middle of a request.
    case stalled
  }

  /// Why reading a request stopped before it was whole.
  enum Interruption: Error, Equatable {
    case rejected(Rejection)
    case closed
    case stalled

    var outcome: Outcome {
      switch self {
      case .rejected(let rejection): .rejected(rejection)
      case .closed: .closed
      case .stalled: .stalled
      }
    }
  }

  private(set) var source: Source
  private let limits: ServerLimits
  private var buffer: [UInt8] = []
  /// Where each read lands before its bytes join `buffer`.
  private var scratch: [UInt8] = []
  private var start = 0
  /// The receive timeout last set, so that it is set again only when it changes.
  private var timeout: Duration?

  init(_ source: Source, limits: ServerLimits) {
    self.source = source
    self.limits = limits
  }

  /// Reads the next request; `sendContinue` is called before the body of a request that asked
  /// for `Expect: 100-continue`, and returns whether the interim answer went out.
  mutating func next(sendContinue: () -> Bool) -> Outcome {
    compact()
    let headEnd: Int
    switch readHead() {
    case .success(let end): headEnd = end
    case .failure(let interruption): return interruption.outcome
    }
    let headBytes = buffer[start..<headEnd]
    start = headEnd + 4
    let head: RequestHead
    switch RequestHead.parse(headBytes, methods: limits.methods) {
    case .success(let parsed): head = parsed
    case .failure(let rejection): return .rejected(rejection)
    }
    let body: [UInt8]
    switch readBody(of: head, sendContinue: sendContinue) {
    case .success(let bytes): body = bytes
    case .failure(let interruption): return interruption.outcome
    }
    return .request(
      ServerRequest(
        method: head.method, target: head.target, version: head.version, headers: head.headers,
        body: Data(body)))
  }

  // MARK: - The head

  /// Skips the empty lines a client may send before a request (RFC 9112, section 2.2); a lone
  /// CR at the end of what arrived waits for the next read, which may bring its LF.
  private mutating func skipEmptyLines() {
    while buffered >= 2, buffer[start] == 13, buffer[start + 1] == 10 { start += 2 }
  }

  /// The index of the blank line that ends the head, reading until it comes.
  private mutating func readHead() -> Result<Int, Interruption> {
    var searched = start
    while true {
      // Empty lines are skipped as they arrive, so how the bytes were split into reads does
      // not matter.
      skipEmptyLines()
      if buffered <= 1 && start > 0 {
        // Nothing of a request yet: drop the skipped lines, so endless empty lines take no
        // memory.
        compact()
        searched = 0
      }
      searched = max(searched, start)
      if let end = blankLineIndex(in: buffer, from: searched) {
        guard end - start <= limits.maxHeaderBytes else {
          return .failure(
            .rejected(Rejection(431, "the header fields exceed \(limits.maxHeaderBytes) bytes")))
        }
        return .success(end)
      }
      // A head of the largest size is whole once its blank line, four bytes more, is in.
      guard buffered - 4 < limits.maxHeaderBytes else {
        return .failure(
          .rejected(Rejection(431, "the header fields exceed \(limits.maxHeaderBytes) bytes")))
      }
      searched = max(start, buffer.count - 3)
      let idle = buffered == 0
      setTimeout(idle ? limits.idleTimeout : limits.stallTimeout)
      switch fill() {
      case .bytes: continue
      case .closed, .failed: return .failure(.closed)
      case .timedOut: return .failure(idle ? .closed : .stalled)
      }
    }
  }

  // MARK: - The body

  private mutating func readBody(of head: RequestHead, sendContinue: () -> Bool) -> Result<
    [UInt8], Interruption
  > {
    let lengths = head.headers("content-length")
    let codings = head.headers("transfer-encoding")
    if !codings.isEmpty && !lengths.isEmpty {
      return .failure(
        .rejected(Rejection(400, "both Content-Length and Transfer-Encoding are set")))
    }
    let expectsContinue = head.header("expect")?.lowercased() == "100-continue"
    if !codings.isEmpty {
      guard codings.count == 1, codings[0].lowercased() == "chunked" else {
        return .failure(.rejected(Rejection(501, "only the chunked transfer coding is served")))
      }
      if expectsContinue && !sendContinue() { return .failure(.closed) }
      return readChunked()
    }
    guard let first = lengths.first else { return .success([]) }
    guard lengths.allSatisfy({ $0 == first }), let length = Int(first), length >= 0,
      first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else {
      return .failure(.rejected(Rejection(400, "Content-Length is not one decimal number")))
    }
    guard length <= limits.maxBodyBytes else {
      return .failure(.rejected(Rejection(413, "the body exceeds \(limits.maxBodyBytes) bytes")))
    }
    if expectsContinue && length > 0 && buffered == 0 && !sendContinue() {
      return .failure(.closed)
    }
    return readExactly(length)
  }

  private mutating func readChunked() -> Result<[UInt8], Interruption> {
    var body: [UInt8] = []
    while true {
      let line: [UInt8]
      switch readLine() {
      case .success(let read): line = read
      case .failure(let outcome): return .failure(outcome)
      }
      let sizeText = String(decoding: line.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self)
        .trimmingCharacters(in: .whitespaces)
      guard !sizeText.isEmpty, sizeText.count <= 16, let size = Int(sizeText, radix: 16), size >= 0
      else {
        return .failure(.rejected(Rejection(400, "a chunk size is not a hexadecimal number")))
      }
      if size == 0 { break }
      guard body.count + size <= limits.maxBodyBytes else {
        return .failure(.rejected(Rejection(413, "the body exceeds \(limits.maxBodyBytes) bytes")))
      }
      switch readExactly(size) {
      case .success(let chunk): body += chunk
      case .failure(let outcome): return .failure(outcome)
      }
      switch readLine() {
      case .success(let rest) where rest.isEmpty: continue
      case .success: return .failure(.rejected(Rejection(400, "a chunk does not end with CRLF")))
      case .failure(let outcome): return .failure(outcome)
      }
    }
    // Trailer fields, up to the blank line; they are read and dropped.
    var trailerBytes = 0
    while true {
      switch readLine() {
      case .success(let line) where line.isEmpty: return .success(body)
      case .success(let line):
        trailerBytes += line.count
        if trailerBytes > limits.maxHeaderBytes {
          return .failure(.rejected(Rejection(431, "the trailer fields are too large")))
        }
      case .failure(let outcome): return .failure(outcome)
      }
    }
  }

  /// The next line of a chunked body without its CRLF; one longer than the header limit is
  /// refused, however much of the body has arrived.
  private mutating func readLine() -> Result<[UInt8], Interruption> {
    let tooLong = Interruption.rejected(Rejection(400, "a line of the chunked body is too long"))
    var searched = start
    while true {
      var position = searched
      while position + 1 < buffer.count {
        if buffer[position] == 13 && buffer[position + 1] == 10 {
          guard position - start <= limits.maxHeaderBytes else { return .failure(tooLong) }
          let line = Array(buffer[start..<position])
          start = position + 2
          return .success(line)
        }
        position += 1
      }
      // The longest line is whole once its CRLF, two bytes more, is in.
      guard buffered - 2 < limits.maxHeaderBytes else { return .failure(tooLong) }
      searched = max(start, buffer.count - 1)
      setTimeout(limits.stallTimeout)
      switch fill() {
      case .bytes: continue
      case .closed, .failed: return .failure(.closed)
      case .timedOut: return .failure(.stalled)
      }
    }
  }

  private mutating func readExactly(_ count: Int) -> Result<[UInt8], Interruption> {
    setTimeout(limits.stallTimeout)
    while buffered < count {
      switch fill(atLeast: count - buffered) {
      case .bytes: continue
      case .closed, .failed: return .failure(.closed)
      case .timedOut: return .failure(.stalled)
      }
    }
    let bytes = Array(buffer[start..<start + count])
    start += count
    return .success(bytes)
  }

  // MARK: - The buffer

  private mutating func setTimeout(_ duration: Duration) {
    guard timeout != duration else { return }
    timeout = duration
    source.setTimeout(duration)
  }

  private var buffered: Int { buffer.count - start }

  /// Reads what the source has into the buffer, up to 64 KiB at a time; indices into the
  /// buffer stay valid.
  ///
  /// A read lands in `scratch`, allocated once, so a read that brings a few bytes costs those
  /// bytes, not the size of the read it asked for.
  private mutating func fill(atLeast wanted: Int = 0) -> Socket.ReadResult {
    let size = min(max(wanted, 16 * 1024), 64 * 1024)
    if scratch.count < size { scratch = [UInt8](repeating: 0, count: size) }
    let result = scratch.withUnsafeMutableBytes { raw -> Socket.ReadResult in
      guard let base = raw.baseAddress else { return .closed }
      return source.read(into: base, count: size)
    }
    if case .bytes(let count) = result { buffer.append(contentsOf: scratch[0..<count]) }
    return result
  }

  /// Drops what earlier requests consumed, between requests, so the buffer does not grow with
  /// the connection's lifetime.
  private mutating func compact() {
    guard start > 0 else { return }
    buffer.removeFirst(start)
    start = 0
  }
}
