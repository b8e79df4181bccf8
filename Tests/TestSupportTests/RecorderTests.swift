import Dispatch
import TestSupport
import Testing

@Suite("Recorder", .tags(.testSupport), .timeBudget(.seconds(5)))
struct RecorderTests {
  @Test("It keeps what is recorded in order")
  func keepsOrder() {
    // given
    let recorder = Recorder<String>()

    // when
    recorder.append("first")
    recorder.record("second")

    // then
    #expect(recorder.elements == ["first", "second"])
    #expect(recorder.count == 2)
  }

  @Test("Records from many threads are all kept")
  func concurrent() {
    // given
    let recorder = Recorder<Int>()

    // when
    DispatchQueue.concurrentPerform(iterations: 4) { index in
      for value in 0..<250 { recorder.append(index * 1_000 + value) }
    }

    // then
    #expect(recorder.count == 1_000)
    #expect(Set(recorder.elements).count == 1_000)
  }

  @Test("Removing everything empties it")
  func removeAll() {
    // given
    let recorder = Recorder<Int>()
    recorder.append(1)

    // when
    recorder.removeAll()

    // then
    #expect(recorder.elements.isEmpty)
  }

  @Test("Awaiting the next element returns those recorded before, then waits for a new one")
  func awaitsNext() async {
    // given
    let recorder = Recorder<Int>()
    recorder.append(1)
    Task {
      try? await Task.sleep(for: .milliseconds(20))
      recorder.append(2)
    }

    // when
    let first = await recorder.next()
    let second = await recorder.next()

    // then
    #expect([first, second] == [1, 2])
  }

  @Test("Awaiting an element that never comes records an issue and returns nil")
  func nextTimesOut() async {
    // given
    let recorder = Recorder<Int>()
    recorder.append(1)
    _ = await recorder.next()

    // when, then
    await withKnownIssue {
      let missing = await recorder.next(within: .milliseconds(30))
      #expect(missing == nil)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("no new element") }
    }
  }
}
