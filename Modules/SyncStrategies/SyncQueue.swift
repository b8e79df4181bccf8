import Models

/// What the sync layer is doing at one moment.
///
/// It lists what is pending, in flight, blocked (on what), waiting to retry, and failed (why).
/// Users of sync engines ask for this more than anything.
public struct SyncQueueSnapshot: Sendable, Equatable, CustomStringConvertible {
  /// One local change of one object.
  public struct Item: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The object.
    public let object: ObjectReference
    /// Insert, update or delete.
    public let kind: UpstreamChangeKind
    /// The keys, sorted; empty for inserts and deletions.
    public let keys: [String]

    /// Reads as `update Conversation 3f2a… [name]`.
    public var description: String {
      "\(kind.rawValue) \(object)" + (keys.isEmpty ? "" : " [\(keys.joined(separator: ", "))]")
    }

    /// Orders by object.
    public static func < (lhs: Self, rhs: Self) -> Bool {
      (lhs.object, lhs.kind.rawValue) < (rhs.object, rhs.kind.rawValue)
    }
  }

  /// A change that waits for other objects.
  public struct Blocked: Sendable, Hashable {
    /// The waiting change.
    public let item: Item
    /// The objects it waits for.
    public let waitingFor: [ObjectReference]
    /// Whether the wait is part of a dependency cycle, which never resolves by itself.
    public let isCycle: Bool
  }

  /// A change that waits for its retry after a temporary failure.
  public struct Retrying: Sendable, Hashable {
    /// The change.
    public let item: Item
    /// How many attempts failed so far.
    public let failedAttempts: Int
    /// How long until the next attempt.
    public let retryIn: Duration
  }

  /// An object whose change the backend refused for good.
  public struct Failure: Sendable, Hashable {
    /// The object.
    public let object: ObjectReference
    /// Why, as the strategy worded it.
    public let reason: String
  }

  /// Changes ready to be sent.
  public internal(set) var pending: [Item] = []
  /// Changes handed to the transport and not answered yet (some may wait for a free place).
  public internal(set) var inFlight: [Item] = []
  /// Changes waiting for other objects.
  public internal(set) var blocked: [Blocked] = []
  /// Changes waiting to retry.
  public internal(set) var retrying: [Retrying] = []
  /// Objects whose change failed for good.
  public internal(set) var failed: [Failure] = []

  /// Whether nothing is left to do or to report.
  public var isEmpty: Bool {
    pending.isEmpty && inFlight.isEmpty && blocked.isEmpty && retrying.isEmpty && failed.isEmpty
  }

  /// One line: `2 pending, 1 in flight, 1 blocked, 0 retrying, 0 failed`.
  public var description: String {
    "\(pending.count) pending, \(inFlight.count) in flight, \(blocked.count) blocked, "
      + "\(retrying.count) retrying, \(failed.count) failed"
  }
}
