import Foundation
import TestSupport
import Testing

@testable import LoopbackServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("LoopbackClient", .tags(.loopbackServer, .transport), .courier(timeBudget: .seconds(20)))
struct LoopbackClientTests {
  /// Whether a pipe opened now carries a byte from one end to the other: it does unless another
  /// thread closes one of its descriptors meanwhile.
  static func pipeCarriesAByte() -> Bool {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return false }
    defer {
      _ = close(ends[0])
      _ = close(ends[1])
    }
    var byte: UInt8 = 7
    guard write(ends[1], &byte, 1) == 1 else { return false }
    byte = 0
    return read(ends[0], &byte, 1) == 1 && byte == 7
  }

  @Test(
    "A connection refused closes its descriptor once, so no descriptor another thread opens since is closed under it"
  )
  func refusedConnectionClosesOnce() async throws {
    // given: a port held by a socket that does not listen, so that nothing can listen on it
    // meanwhile, and a thread that keeps opening and using pipes
    let holder = Socket(descriptor: Socket.makeStreamDescriptor())
    defer { holder.close() }
    try #require(holder.withLoopbackAddress(port: 0) { bind($0, $1, $2) } == 0)
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(holder.descriptor, $0, &length)
      }
    }
    let port = UInt16(bigEndian: address.sin_port)
    let attempts = 3_000

    // when
    async let broken = DedicatedThread.perform {
      (0..<attempts).filter { _ in !Self.pipeCarriesAByte() }.count
    }
    let refused = try await DedicatedThread.perform {
      (0..<attempts).filter { _ in (try? LoopbackClient(port: port)) == nil }.count
    }

    // then
    #expect(refused == attempts)
    #expect(try await broken == 0)
  }
}
