import Seams

/// Runs one send against its expiry: whichever ends first, the send or the time, decides.
///
/// When the time runs out first, the send is cancelled (a `URLSession` task is cancelled on the
/// wire, a queued request leaves the queue) and the outcome is ``TransportError/expired(after:)``.
/// When the caller's task is cancelled, the send's own outcome stands, `cancelled` as a rule.
enum ExpiryRace {
  /// The outcome of `send`, or `expired` if `expiry` passes on `time` before it ends.
  static func run(
    expiry: Duration, on time: any TimeSource,
    _ send: @escaping @Sendable () async -> Result<TransportResponse, TransportError>
  ) async -> Result<TransportResponse, TransportError> {
    await withTaskGroup(of: Result<TransportResponse, TransportError>?.self) { group in
      group.addTask { await send() }
      group.addTask {
        // A stopped timer (the send ended, or the caller was cancelled) decides nothing.
        guard (try? await time.sleep(for: expiry)) != nil else { return nil }
        return .failure(.expired(after: expiry))
      }
      for await outcome in group {
        if let outcome {
          group.cancelAll()
          return outcome
        }
      }
      return .failure(.cancelled)
    }
  }
}
