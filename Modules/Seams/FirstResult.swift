/// Runs `operation` until it returns or `timeout` passes, whichever comes first.
///
/// The operation must stop when cancelled (awaiting an `AsyncStream` does); it is cancelled when
/// the timeout wins. Nothing blocks a thread while waiting.
///
/// - Returns: The operation's result, or `nil` when the timeout passed first.
public func firstResult<Result: Sendable>(
  within timeout: Duration,
  _ operation: @escaping @Sendable () async -> Result?
) async -> Result? {
  await withTaskGroup(of: Result?.self) { group in
    group.addTask { await operation() }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}
