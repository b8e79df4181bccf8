import Dispatch
import Foundation
import Seams

/// Waits for Ctrl-C (`SIGINT`) or `SIGTERM`, so a command can stop cleanly instead of dying.
public enum TerminationSignal {
  /// Returns when the process receives `SIGINT` or `SIGTERM`; from then on those signals no
  /// longer end the process by themselves.
  public static func wait() async {
    let sources = Locked<[any DispatchSourceSignal]>([])
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumed = Locked(false)
      for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
          let first = resumed.withLock { resumed in
            defer { resumed = true }
            return !resumed
          }
          if first { continuation.resume() }
        }
        source.resume()
        sources.withLock { $0.append(source) }
      }
    }
    for source in sources.withLock({ $0 }) { source.cancel() }
  }
}
