import Seams
import TestSupport
import Testing

@testable import Transport

@Suite("ConcurrencyLimiter", .tags(.transport), .timeBudget(.seconds(5)))
struct ConcurrencyLimiterTests {
  @Test("Tasks beyond the limit wait, and are let through in arrival order")
  func fifo() async throws {
    // given
    let limiter = ConcurrencyLimiter(limit: 1)
    try await limiter.acquire()
    let order = Recorder<Int>()
    var waiters: [Task<Void, any Error>] = []
    for index in 1...3 {
      waiters.append(
        Task {
          try await limiter.acquire()
          order.append(index)
          limiter.release()
        })
      while limiter.counts.waiting < index { await Task.yield() }
    }

    // when
    limiter.release()
    for waiter in waiters { try await waiter.value }

    // then
    #expect(order.elements == [1, 2, 3])
    #expect(limiter.counts == (running: 0, waiting: 0))
  }

  @Test("A cancelled waiter leaves the queue and the next one gets the slot")
  func cancelledWaiterSkipped() async throws {
    // given
    let limiter = ConcurrencyLimiter(limit: 1)
    try await limiter.acquire()
    let cancelled = Task { try await limiter.acquire() }
    while limiter.counts.waiting < 1 { await Task.yield() }
    let next = Task {
      try await limiter.acquire()
      limiter.release()
    }
    while limiter.counts.waiting < 2 { await Task.yield() }

    // when
    cancelled.cancel()
    let cancelledResult = await cancelled.result
    limiter.release()
    try await next.value

    // then
    #expect(throws: CancellationError.self) { try cancelledResult.get() }
    #expect(limiter.counts == (running: 0, waiting: 0))
  }

  @Test("A bounded wait takes a free slot at once, without a timer")
  func boundedWaitFreeSlot() async throws {
    // given
    let limiter = ConcurrencyLimiter(limit: 1)
    let clock = ManualTimeSource()

    // when
    let acquired = try await limiter.acquire(waitingAtMost: .seconds(1), on: clock)

    // then
    #expect(acquired)
    #expect(clock.pendingSleeps.isEmpty)
    #expect(limiter.counts == (running: 1, waiting: 0))
  }

  @Test("A bounded wait that runs out holds no slot and leaves the queue; the next one is served")
  func boundedWaitRunsOut() async throws {
    // given
    let limiter = ConcurrencyLimiter(limit: 1)
    let clock = ManualTimeSource()
    try await limiter.acquire()
    let waiting = Task { try await limiter.acquire(waitingAtMost: .seconds(2), on: clock) }
    await clock.waitForSleepers(1)
    let patient = Task { try await limiter.acquire(waitingAtMost: .seconds(10), on: clock) }
    while limiter.counts.waiting < 2 { await Task.yield() }

    // when
    clock.advance(by: .seconds(2))
    let timedOut = try await waiting.value
    limiter.release()
    let served = try await patient.value

    // then
    #expect(!timedOut)
    #expect(served)
    #expect(limiter.counts == (running: 1, waiting: 0))
  }

  @Test("A bounded wait whose task is cancelled throws and holds no slot")
  func boundedWaitCancelled() async throws {
    // given
    let limiter = ConcurrencyLimiter(limit: 1)
    let clock = ManualTimeSource()
    try await limiter.acquire()
    let waiting = Task { try await limiter.acquire(waitingAtMost: .seconds(2), on: clock) }
    await clock.waitForSleepers(1)

    // when
    waiting.cancel()
    let outcome = await waiting.result

    // then
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(limiter.counts == (running: 1, waiting: 0))
  }

  @Test("A limit below one lets one task through")
  func minimumLimit() {
    // given
    let limiter = ConcurrencyLimiter(limit: 0)

    // when
    let limit = limiter.limit

    // then
    #expect(limit == 1)
  }
}

@Suite("RingBuffer", .tags(.transport), .timeBudget(.seconds(5)))
struct RingBufferTests {
  @Test("It gives elements back first in, first out across growth and wrap-around")
  func fifoAcrossWrap() {
    // given
    var buffer = RingBuffer<Int>()
    var expected: [Int] = []
    var popped: [Int] = []

    // when
    for round in 0..<5 {
      for value in 0..<(7 + round * 3) {
        buffer.append(round * 100 + value)
        expected.append(round * 100 + value)
      }
      for _ in 0..<5 { popped.append(buffer.popFirst() ?? -1) }
    }
    while let value = buffer.popFirst() { popped.append(value) }

    // then
    #expect(popped == expected)
    #expect(buffer.isEmpty)
    #expect(buffer.popFirst() == nil)
  }
}
