import Testing

/// When ``pollingConfirmation(_:until:within:pollingEvery:isolation:sourceLocation:_:)`` stops
/// polling, and what counts as a failure.
///
/// The two cases mirror Swift Testing's experimental polling confirmations, so a test written
/// with them can move to the library's own once it ships.
public enum PollingStop: Sendable, Hashable {
  /// Poll until the condition holds once; it fails when the condition never holds in time.
  case firstPass
  /// Poll for the whole duration; it fails as soon as the condition stops holding.
  case stopsPassing
}

/// Waits for a condition to hold (or checks that it keeps holding) by polling it, and records an
/// issue naming the comment when it does not.
///
/// Use it for state that changes without telling anyone, such as a view model that updates from a
/// context's changes:
///
/// ```swift
/// await pollingConfirmation("the composer shows the message as sent", until: .firstPass) {
///   composer.state == .sent
/// }
/// ```
///
/// Polling never blocks a thread: between polls the task sleeps. The duration is scaled by
/// ``TimeoutScale`` like every TestSupport wait.
///
/// - Returns: Whether the confirmation held.
@discardableResult
public func pollingConfirmation(
  _ comment: Comment? = nil,
  until stop: PollingStop,
  within duration: Duration = TimeoutScale.scaled(.seconds(1)),
  pollingEvery interval: Duration = .milliseconds(2),
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () async throws -> Bool
) async rethrows -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now + duration
  var polls = 0
  let name = comment.map { " (\($0.rawValue))" } ?? ""
  while true {
    polls += 1
    let holds = try await condition()
    switch stop {
    case .firstPass where holds:
      return true
    case .stopsPassing where !holds:
      Issue.record(
        "The condition\(name) stopped holding on poll \(polls)", sourceLocation: sourceLocation)
      return false
    default:
      break
    }
    if clock.now >= deadline { break }
    try? await Task.sleep(for: interval)
  }
  if stop == .firstPass {
    Issue.record(
      "The condition\(name) did not hold within \(duration) (\(polls) polls)",
      sourceLocation: sourceLocation)
    return false
  }
  return true
}
