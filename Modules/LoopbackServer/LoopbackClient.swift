import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small blocking HTTP/1.1 client over one connection to `127.0.0.1`, for probing a server
/// byte by byte: hostile requests, pipelining, stalls, and benchmarks without `URLSession`'s cost.
///
/// Its calls block the calling thread. Call it from a thread of your own (in tests,
/// `DedicatedThread.run`), never from a task on Swift's cooperative pool, where a blocked thread
/// can stall the very server it waits for.
public final class LoopbackClient {
  /// An answer as the client read it.
  public struct Response: Sendable, Hashable {
    /// The status code.
    public let status: Int
    /// The header fields.
    public let headers: [HeaderField]
    /// The body.
    public let body: [UInt8]

    /// The value of the first field called `name`, compared without case.
    public func header(_ name: String) -> String? {
      headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
  }

  private let socket: Socket
  private var buffer: [UInt8] = []

  /// Connects to `127.0.0.1:port`, giving each later read or write at most `timeout`.
  ///
  /// - Throws: ``ServerError`` when the connection cannot be made.
  public init(port: UInt16, timeout: Duration = .seconds(5)) throws(ServerError) {
    let descriptor = Socket.makeStreamDescriptor()
    guard descriptor >= 0 else { throw .cannotCreateSocket(code: errno) }
    let socket = Socket(descriptor: descriptor)
    socket.closeOnExec()
    let connected = socket.withLoopbackAddress(port: port) { connect($0, $1, $2) }
    guard connected == 0 else {
      let code = errno
      socket.close()
      throw .cannotConnect(port: port, code: code)
    }
    // Set only once connected: a class whose init throws after its properties are set runs
    // its deinit, which would close the descriptor a second time, and by then the number may
    // be another thread's.
    self.socket = socket
    socket.disableNagle()
    socket.setTimeouts(timeout)
  }

  deinit {
    socket.close()
  }

  /// Sends `bytes` as they are; returns whether they all went out.
  @discardableResult
  public func send(_ bytes: [UInt8]) -> Bool {
    socket.writeAll(bytes)
  }

  /// Sends `text` as UTF-8; returns whether it all went out.
  @discardableResult
  public func send(_ text: String) -> Bool {
    send(Array(text.utf8))
  }

  /// Sends a request with `Host`, and `Content-Length` when there is a body.
  @discardableResult
  public func request(
    _ method: String, _ target: String, headers: [HeaderField] = [], body: [UInt8] = []
  ) -> Bool {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for field in headers { head += "\(field.name): \(field.value)\r\n" }
    if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
      head += "Content-Length: \(body.count)\r\n"
    }
    head += "\r\n"
    return send(Array(head.utf8) + body)
  }

  /// Reads one answer; `nil` if the connection closed or timed out before a whole one came.
  public func readResponse(forMethod method: String = "GET") -> Response? {
    guard let end = readUntilBlankLine() else { return nil }
    let head = String(decoding: buffer[..<end], as: UTF8.self)
    buffer.removeFirst(end + 4)
    let lines = head.split(separator: "\r\n")
    guard let statusLine = lines.first else { return nil }
    let parts = statusLine.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
    let headers = lines.dropFirst().compactMap { line -> HeaderField? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return HeaderField(
        String(line[..<colon]),
        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    let length =
      headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
    let bodyLength = method == "HEAD" || status == 100 ? 0 : length
    while buffer.count < bodyLength {
      guard fill() else { return nil }
    }
    let body = Array(buffer.prefix(bodyLength))
    buffer.removeFirst(bodyLength)
    return Response(status: status, headers: headers, body: body)
  }

  /// Whether the server closed the connection: the next read finds its end, with nothing
  /// before it.
  public func isClosedByServer() -> Bool {
    guard buffer.isEmpty else { return false }
    var byte: UInt8 = 0
    return socket.read(into: &byte, count: 1) == .closed
  }

  /// Reads up to `count` bytes of whatever comes, for a client that reads slowly; `nil` once
  /// the connection closed or timed out.
  public func readSome(_ count: Int) -> [UInt8]? {
    if buffer.isEmpty, !fill() { return nil }
    let taken = Array(buffer.prefix(count))
    buffer.removeFirst(taken.count)
    return taken
  }

  /// Ends the connection; with `reset`, abruptly, as a crashed client would.
  public func close(reset: Bool = false) {
    if reset { socket.resetOnClose() }
    socket.shutDown()
  }

  private func readUntilBlankLine() -> Int? {
    var searched = 0
    while true {
      if let end = blankLineIndex(in: buffer, from: searched) { return end }
      searched = max(0, buffer.count - 3)
      guard fill() else { return nil }
    }
  }

  private func fill() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    let result = chunk.withUnsafeMutableBytes { raw -> Socket.ReadResult in
      guard let base = raw.baseAddress else { return .closed }
      return socket.read(into: base, count: raw.count)
    }
    guard case .bytes(let count) = result else { return false }
    buffer.append(contentsOf: chunk.prefix(count))
    return true
  }
}
