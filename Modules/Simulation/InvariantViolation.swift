/// A rule of the sync promise that a simulated run broke.
public struct InvariantViolation: Error, Sendable, Hashable, CustomStringConvertible {
  /// Which rule.
  public let invariant: Invariant
  /// The step after which it was found (from 1), or `nil` at the end of the run.
  public let step: Int?
  /// What was wrong.
  public let detail: String

  /// `after step 12: saved value lost: …`.
  public var description: String {
    "\(step.map { "after step \($0)" } ?? "at the end"): \(invariant): \(detail)"
  }
}

/// The rules the simulator checks.
public enum Invariant: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// Two requests in flight carry the same key of one object.
  case keyInFlightTwice = "key in flight twice"
  /// A value the UI saved is neither on the server nor pending.
  case savedValueLost = "saved value lost"
  /// The user's last saved value of a key is neither here nor on the server, though nothing
  /// else changed that key: the client went back to the server's value unasked.
  case lastEditLost = "last edit lost"
  /// A message or a group is on the server twice.
  case createdTwice = "created twice"
  /// A conversation's messages are on the server out of the order they were written.
  case messagesOutOfOrder = "messages out of order"
  /// The server applied the same change of the app twice.
  case appliedTwice = "change applied twice"
  /// The server applied a change of the app again after another device's later change of the
  /// same key.
  case overwroteLaterChange = "later change overwritten"
  /// The client's notification cursor named a notification before one it had named already:
  /// it would read old news again, over newer values.
  case cursorMovedBack = "cursor moved back"
  /// The UI context or the sync context showed a name the server set before a name it had
  /// shown already.
  case olderValueShown = "older value shown"
  /// After draining, something is still pending, or a refusal has no reason; or the client
  /// never stops sending.
  case queueNotDrained = "queue not drained"
  /// After draining, the UI, the sync context, the store and the server disagree.
  case endStateDiffers = "end state differs"
  /// After draining, work is still running.
  case notQuiescent = "not quiescent"

  /// The rule's name.
  public var description: String { rawValue }
}
