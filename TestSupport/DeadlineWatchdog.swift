import Seams

/// Calls back at deadlines, for every test of the process, with one sleeping task at a time:
/// far cheaper per test than a timer task each.
final class DeadlineWatchdog: Sendable {
  /// The watchdog every time budget shares.
  static let shared = DeadlineWatchdog()

  private struct Alarm {
    let deadline: ContinuousClock.Instant
    let fire: @Sendable () -> Void
  }

  private struct State {
    var alarms: [Int: Alarm] = [:]
    var nextID = 0
    var sleeper: Task<Void, Never>?
    var sleeperWakes: ContinuousClock.Instant?
  }

  private let state = Locked(State())

  /// Calls `fire` at `deadline` unless cancelled first; returns the alarm's id.
  func schedule(at deadline: ContinuousClock.Instant, fire: @escaping @Sendable () -> Void) -> Int {
    state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.alarms[id] = Alarm(deadline: deadline, fire: fire)
      if state.sleeperWakes.map({ deadline < $0 }) ?? true { startSleeper(until: deadline, &state) }
      return id
    }
  }

  /// Cancels the alarm `id`, if it has not fired.
  func cancel(_ id: Int) {
    state.withLock { _ = $0.alarms.removeValue(forKey: id) }
  }

  private func startSleeper(until deadline: ContinuousClock.Instant, _ state: inout State) {
    state.sleeper?.cancel()
    state.sleeperWakes = deadline
    state.sleeper = Task.detached { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled else { return }
      self?.fireDueAlarms()
    }
  }

  private func fireDueAlarms() {
    let now = ContinuousClock.now
    let due = state.withLock { state -> [Alarm] in
      let due = state.alarms.filter { $0.value.deadline <= now }
      for id in due.keys { state.alarms[id] = nil }
      state.sleeper = nil
      state.sleeperWakes = nil
      if let next = state.alarms.values.map(\.deadline).min() { startSleeper(until: next, &state) }
      return Array(due.values)
    }
    for alarm in due { alarm.fire() }
  }
}
