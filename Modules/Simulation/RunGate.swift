/// Lets one simulation run at a time in a process, the others waiting their turn in order.
///
/// A simulation serves the main queue and watches it fall quiet; two at once would each see
/// the other's jobs, and neither would replay.
@MainActor
final class RunGate {
  static let shared = RunGate()

  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  /// Waits until no other simulation runs, then marks one running.
  func enter() async {
    guard busy else {
      busy = true
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  /// Ends a run and hands the turn to the next waiting one.
  func leave() {
    if waiting.isEmpty {
      busy = false
    } else {
      waiting.removeFirst().resume()
    }
  }
}
