import Seams
import TestSupport
import Testing

@Suite("PollingConfirmation", .tags(.testSupport), .timeBudget(.seconds(5)))
struct PollingConfirmationTests {
  @Test("Until the first pass, it returns as soon as the condition holds")
  func firstPass() async {
    // given
    let flag = Locked(false)
    Task {
      try? await Task.sleep(for: .milliseconds(20))
      flag.withLock { $0 = true }
    }

    // when
    let held = await pollingConfirmation(until: .firstPass) { flag.withLock { $0 } }

    // then
    #expect(held)
  }

  @Test("Until the first pass, a condition that never holds is an issue naming the comment")
  func neverPasses() async {
    await withKnownIssue {
      // when
      let held = await pollingConfirmation(
        "the flag is set", until: .firstPass, within: .milliseconds(30)
      ) { false }

      // then
      #expect(!held)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("(the flag is set) did not hold") }
    }
  }

  @Test("Until it stops passing, a condition that keeps holding passes")
  func keepsPassing() async {
    // when
    let held = await pollingConfirmation(until: .stopsPassing, within: .milliseconds(20)) { true }

    // then
    #expect(held)
  }

  @Test("Until it stops passing, a condition that stops holding is an issue")
  func stopsPassing() async {
    // given
    let polls = Locked(0)

    await withKnownIssue {
      // when
      let held = await pollingConfirmation(until: .stopsPassing, within: .seconds(1)) {
        polls.withLock { count in
          count += 1
          return count < 3
        }
      }

      // then
      #expect(!held)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("stopped holding on poll 3") }
    }
  }
}
