import Seams

/// Runs work against a time limit on a `TimeSource`: whichever ends first, the work or the
/// time, decides.
///
/// At the limit the work is cancelled (a `URLSession` task on the wire, a waiter in a queue)
/// and awaited, so nothing it started outlives the call. When the caller's task is cancelled,
/// the timer decides nothing and the work's own outcome stands.
enum TimeLimit {
  private enum Event<Value: Sendable>: Sendable {
    case finished(Value)
    case timeUp
    case timerStopped
  }

  /// What `operation` returned, or `nil` if `limit` passed on `time` first.
  ///
  /// - Parameter late: Given what a cancelled `operation` still returned after the limit, such as
  ///   a slot it took at the last moment and must give back.
  static func run<Value: Sendable>(
    _ limit: Duration, on time: any TimeSource,
    operation: @escaping @Sendable () async -> Value,
    late: (Value) -> Void = { _ in }
  ) async -> Value? {
    await withTaskGroup(of: Event<Value>.self) { group in
      group.addTask { .finished(await operation()) }
      group.addTask { (try? await time.sleep(for: limit)) == nil ? .timerStopped : .timeUp }
      var timedOut = false
      for await event in group {
        switch event {
        case .finished(let value) where timedOut: late(value)
        case .finished(let value):
          group.cancelAll()
          return value
        case .timeUp:
          timedOut = true
          group.cancelAll()
        case .timerStopped:
          break
        }
      }
      return nil
    }
  }
}
