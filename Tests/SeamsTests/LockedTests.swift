import Dispatch
import Seams
import TestSupport
import Testing

@Suite("Locked", .tags(.seams), .timeBudget(.seconds(5)))
struct LockedTests {
  @Test("It hands the body the current value and keeps what the body changed")
  func keepsChanges() {
    // given
    let names = Locked(["Ada"])

    // when
    let countInside = names.withLock { names in
      names.append("Ann")
      return names.count
    }

    // then
    #expect(countInside == 2)
    #expect(names.value == ["Ada", "Ann"])
  }

  @Test("Increments from many threads at once are all kept")
  func excludesConcurrentWriters() {
    // given
    let counter = Locked(0)

    // when
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<1_000 { counter.withLock { $0 += 1 } }
    }

    // then
    #expect(counter.value == 8_000)
  }

  @Test("An error thrown by the body reaches the caller with its type, and the lock is free again")
  func rethrowsTyped() {
    // given
    struct Refused: Error, Equatable {}
    let value = Locked(1)

    // when
    let result = Result { () throws(Refused) -> Int in
      try value.withLock { (_: inout Int) throws(Refused) -> Int in throw Refused() }
    }

    // then
    #expect(throws: Refused()) { try result.get() }
    #expect(value.withLock { $0 } == 1)
  }

  @Test("Copies share one value, like a reference")
  func copiesShareTheValue() {
    // given
    let original = Locked(0)
    let copy = original

    // when
    copy.withLock { $0 = 7 }

    // then
    #expect(original.value == 7)
  }
}
