import Foundation
import TestSupport
import Testing

/// A fixture for `Tools/test`, not a check: with `COURIER_CRASH_PROBE` set, its test ends the
/// test process with `SIGKILL`, as a crash or the kernel would, so `Tools/check-retries` can prove
/// that `Tools/test` says the process ended early and names the test that was running.
@Suite(
  "Crash probe", .tags(.tools),
  .enabled(
    if: ProcessInfo.processInfo.environment["COURIER_CRASH_PROBE"] != nil,
    "a fixture: Tools/check-retries runs it with COURIER_CRASH_PROBE set"))
struct CrashProbe {
  @Test("It ends the test process without a word")
  func endsTheProcess() {
    // given
    let process = getpid()

    // when
    let sent = kill(process, SIGKILL)

    // then: never reached when the signal arrives
    #expect(sent != 0, "the process outlived SIGKILL")
  }
}
