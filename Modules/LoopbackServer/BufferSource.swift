/// Bytes held in memory, handed out a few at a time as if they came from a socket.
struct BufferSource: ByteSource {
  private let bytes: [UInt8]
  private let readSize: Int
  private var position = 0

  /// A source of `bytes` that gives at most `readSize` of them per read.
  init(_ bytes: [UInt8], readSize: Int) {
    self.bytes = bytes
    self.readSize = max(1, readSize)
  }

  mutating func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Socket.ReadResult {
    let size = min(count, readSize, bytes.count - position)
    guard size > 0 else { return .closed }
    bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      buffer.copyMemory(from: base + position, byteCount: size)
    }
    position += size
    return .bytes(size)
  }

  /// Memory never keeps a reader waiting, so there is no timeout to set.
  mutating func setTimeout(_ duration: Duration) {}
}
