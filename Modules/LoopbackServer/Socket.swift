#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One socket file descriptor with the few calls the server makes on it, each retried on `EINTR`
/// and none raising `SIGPIPE`.
///
/// A socket is closed once, by its owner (the thread that serves it); others only shut it down,
/// which wakes the owner without freeing the number for reuse under its feet.
struct Socket: Sendable, Hashable {
  let descriptor: Int32

  /// What a read gave.
  enum ReadResult: Equatable {
    /// This many bytes were read.
    case bytes(Int)
    /// The peer closed its side, or the socket was shut down.
    case closed
    /// Nothing arrived within the receive timeout.
    case timedOut
    /// The read failed with this `errno`.
    case failed(Int32)
  }

  /// Reads at most `count` bytes into `buffer`.
  func read(into buffer: UnsafeMutableRawPointer, count: Int) -> ReadResult {
    while true {
      let result = recv(descriptor, buffer, count, 0)
      if result > 0 { return .bytes(result) }
      if result == 0 { return .closed }
      let code = errno
      if code == EINTR { continue }
      if code == EAGAIN || code == EWOULDBLOCK { return .timedOut }
      if code == ECONNRESET || code == ENOTCONN || code == EPIPE { return .closed }
      return .failed(code)
    }
  }

  /// Writes all of `bytes`, however many calls it takes; returns whether they were all written
  /// before the peer went away or the send timeout passed.
  func writeAll(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { raw in
      guard var pointer = raw.baseAddress else { return true }
      var left = raw.count
      while left > 0 {
        let written = send(descriptor, pointer, left, Socket.sendFlags)
        if written < 0 {
          if errno == EINTR { continue }
          return false
        }
        pointer += written
        left -= written
      }
      return true
    }
  }

  /// Sets how long a read, and a write, may wait before giving up.
  func setTimeouts(_ duration: Duration) {
    setTimeout(SO_RCVTIMEO, duration)
    setTimeout(SO_SNDTIMEO, duration)
  }

  /// Sets how long a read may wait before giving up.
  func setReceiveTimeout(_ duration: Duration) {
    setTimeout(SO_RCVTIMEO, duration)
  }

  private func setTimeout(_ option: Int32, _ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    // Zero would mean "wait for ever"; the shortest wait is a millisecond.
    let microseconds = max(seconds * 1_000_000 + attoseconds / 1_000_000_000_000, 1_000)
    var value = timeval()
    value.tv_sec = .init(microseconds / 1_000_000)
    value.tv_usec = .init(microseconds % 1_000_000)
    _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Sends small writes at once rather than waiting to fill a packet: answers are small.
  func disableNagle() {
    var one: Int32 = 1
    _ = setsockopt(
      descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Makes the descriptor close in child processes started after it was made.
  func closeOnExec() {
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    #if canImport(Darwin)
      var one: Int32 = 1
      _ = setsockopt(
        descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// Closes the connection at once with a reset instead of an orderly close.
  func resetOnClose() {
    var option = linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
  }

  /// Wakes whoever waits on the socket and ends both directions; the descriptor stays open.
  func shutDown() {
    _ = shutdown(descriptor, Int32(SHUT_RDWR))
  }

  /// Frees the descriptor.
  func close() {
    #if canImport(Glibc)
      _ = Glibc.close(descriptor)
    #elseif canImport(Darwin)
      _ = Darwin.close(descriptor)
    #endif
  }

  /// A new IPv4 stream socket's descriptor, or -1 with `errno` set.
  static func makeStreamDescriptor() -> Int32 {
    socket(AF_INET, streamType, 0)
  }

  /// Calls `call` (`bind` or `connect`) with the address `127.0.0.1:port`; returns its result.
  func withLoopbackAddress(
    port: UInt16, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        call(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  #if os(Linux)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    static let streamType = Int32(SOCK_STREAM.rawValue)
  #else
    static let sendFlags: Int32 = 0
    static let streamType = SOCK_STREAM
  #endif
}

/// The text the C library gives for `code`.
func errorText(_ code: Int32) -> String {
  String(cString: strerror(code))
}

/// Where the blank line that ends an HTTP head starts in `bytes`, searching from `index`.
func blankLineIndex(in bytes: [UInt8], from index: Int) -> Int? {
  var position = index
  while position + 3 < bytes.count {
    if bytes[position] == 13, bytes[position + 1] == 10, bytes[position + 2] == 13,
      bytes[position + 3] == 10
    {
      return position
    }
    position += 1
  }
  return nil
}
