import Foundation
import TestSupport
import Testing

@testable import LoopbackServer

@Suite("WakePipe", .tags(.loopbackServer, .transport), .courier(timeBudget: .seconds(5)))
struct WakePipeTests {
  @Test("A wake makes the read end readable")
  func wakeIsRead() throws {
    // given
    let pipe = try #require(WakePipe.open())
    defer { pipe.close() }

    // when
    let woke = pipe.wake()

    // then
    #expect(woke == .woke)
    #expect(pipe.isReadable)
  }

  @Test("A wake after the close does not write, however often either comes")
  func wakeAfterClose() throws {
    // given
    let pipe = try #require(WakePipe.open())
    pipe.close()

    // when
    let woke = [pipe.wake(), pipe.wake()]
    pipe.close()

    // then
    #expect(woke == [.closed, .closed])
  }
}

extension WakePipe {
  /// Whether the read end has a byte waiting, without waiting for one; for an open pipe only.
  fileprivate var isReadable: Bool {
    var wait = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
    return poll(&wait, 1, 0) == 1 && wait.revents & Int16(POLLIN) != 0
  }
}
