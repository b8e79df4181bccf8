import Seams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pipe whose one byte wakes the accepting thread from `poll`, safe to wake after it closed.
///
/// Stopping a server wakes the pipe while the accepting thread may already be on its way out,
/// closing the pipe. A descriptor number is reused as soon as it is closed, so a late write could
/// land in whatever another thread opened next: a byte in someone else's socket, or a `SIGPIPE`
/// that ends the process without a word. Waking and closing therefore take turns under one
/// lock, and a wake after the close writes nothing.
final class WakePipe: Sendable {
  /// The end the accepting thread polls.
  let readEnd: Int32
  private let writeEnd: Int32
  private let isClosed = Locked(false)

  private init(readEnd: Int32, writeEnd: Int32) {
    self.readEnd = readEnd
    self.writeEnd = writeEnd
  }

  /// A new pipe whose ends close in child processes, or `nil` with `errno` set.
  static func open() -> WakePipe? {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return WakePipe(readEnd: ends[0], writeEnd: ends[1])
  }

  /// What a wake did.
  enum Wake: Equatable {
    /// The byte was written.
    case woke
    /// Nothing was written: the pipe is closed.
    case closed
    /// The write failed with this `errno`.
    case failed(Int32)
  }

  /// Writes the byte that makes the read end readable, unless the pipe is closed.
  @discardableResult
  func wake() -> Wake {
    isClosed.withLock { closed in
      guard !closed else { return .closed }
      var byte: UInt8 = 1
      return write(writeEnd, &byte, 1) == 1 ? .woke : .failed(errno)
    }
  }

  /// Closes both ends, once; later calls and wakes do nothing.
  func close() {
    isClosed.withLock { closed in
      guard !closed else { return }
      closed = true
      #if canImport(Glibc)
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
      #elseif canImport(Darwin)
        _ = Darwin.close(readEnd)
        _ = Darwin.close(writeEnd)
      #endif
    }
  }

}
