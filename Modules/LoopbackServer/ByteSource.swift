/// Where a connection's bytes come from: the socket in the server, a script of reads in tests.
protocol ByteSource {
  /// Reads at most `count` bytes into `buffer`, waiting at most the current timeout.
  mutating func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Socket.ReadResult

  /// Sets how long the next reads may wait.
  mutating func setTimeout(_ duration: Duration)
}

extension Socket: ByteSource {
  func setTimeout(_ duration: Duration) { setReceiveTimeout(duration) }
}
