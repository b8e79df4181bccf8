import Foundation
import TestSupport
import Testing

/// A fixture for the retry and flakiness tools, not a check: with `COURIER_FLAKY_PROBE` naming a
/// folder, its test fails the first time it runs and passes every time after, so
/// `Tools/check-retries` can prove that `Tools/test --retry-failed` and `Tools/flaky` report it.
@Suite(
  "Flaky probe", .tags(.tools),
  .enabled(
    if: ProcessInfo.processInfo.environment["COURIER_FLAKY_PROBE"] != nil,
    "a fixture: Tools/check-retries runs it with COURIER_FLAKY_PROBE set to a folder"))
struct FlakyProbe {
  @Test("It fails on its first run and passes once its marker file exists")
  func failsOnce() throws {
    // given
    let folder = ProcessInfo.processInfo.environment["COURIER_FLAKY_PROBE"] ?? ""
    let marker = URL(fileURLWithPath: folder).appendingPathComponent("ran-before")

    // when
    let ranBefore = FileManager.default.fileExists(atPath: marker.path)
    try Data().write(to: marker)

    // then
    #expect(ranBefore, "the first run fails on purpose")
  }
}
