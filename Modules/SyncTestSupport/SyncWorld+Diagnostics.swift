import FakeBackend
import Seams
import SyncEngine
import TestSupport
import Testing

extension SyncWorld {
  /// Attaches what a person needs to see why a sync test failed to the running test: the fake's
  /// journal, the engine's events, the log the test recorded (under `.failsOnLoggedErrors` or
  /// `.courier()`), and the work still running with where it started.
  ///
  /// ``settle(within:allowing:sourceLocation:)`` calls it when it fails; call it yourself before a
  /// failing expectation that needs the same. The attachments are saved where
  /// `swift test --attachments-path DIR` says.
  public func attachDiagnostics() async {
    for (name, text) in await diagnostics() {
      Attachment.record(text, named: name)
    }
  }

  /// The files ``attachDiagnostics()`` attaches, by name: `journal.txt`, `events.txt`, `log.txt`
  /// and `running-jobs.txt`, one entry a line.
  public func diagnostics() async -> [(name: String, text: String)] {
    let running = await stack.tracker.settle(within: .zero)
    let log = LogRecorder.current?.entries.map(\.description) ?? ["(no log recorder installed)"]
    let files = [
      ("journal.txt", fake.journal.map(\.description)),
      ("events.txt", events.elements.map(\.description)),
      ("log.txt", log),
      ("running-jobs.txt", running.map(\.description)),
    ]
    return files.map { name, lines in (name, lines.map { $0 + "\n" }.joined()) }
  }
}
