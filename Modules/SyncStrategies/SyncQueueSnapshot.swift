import Models

/// What the sync layer is doing at one moment.
///
/// It lists what is ready, in flight, blocked (on what), waiting on a failure, waiting to retry,
/// and failed (why). Users of sync engines ask for this more than anything.
public struct SyncQueueSnapshot: Sendable, Equatable, CustomStringConvertible {
  /// One local change of one object.
  public struct Item: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The object.
    public let object: ObjectReference
    /// Insert, update or delete.
    public let kind: UpstreamChangeKind
    /// The keys the change concerns; empty for inserts and deletions.
    public let keys: KeySet

    /// Creates an item.
    public init(object: ObjectReference, kind: UpstreamChangeKind, keys: KeySet = .none) {
      self.object = object
      self.kind = kind
      self.keys = keys
    }

    /// Reads as `update Conversation 3f2a… [name]`.
    public var description: String {
      "\(kind.rawValue) \(object)" + (keys.isEmpty ? "" : " [\(keys)]")
    }

    /// Orders by object, then kind.
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

  /// A change that cannot go because an object it needs was refused for good.
  public struct WaitingOnFailure: Sendable, Hashable {
    /// The waiting change.
    public let item: Item
    /// The object whose change failed.
    public let failedObject: ObjectReference
    /// Why that change failed.
    public let reason: String
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

  /// An object whose change the backend refused for good; retry or discard it through the
  /// engine.
  public struct Failure: Sendable, Hashable {
    /// The object.
    public let object: ObjectReference
    /// Why, as the strategy worded it.
    public let reason: String
    /// The refusal's HTTP status, if a response came.
    public let status: Int?
  }

  /// Changes ready to be sent.
  public internal(set) var pending: [Item] = []
  /// Changes handed to the transport and not answered yet (some may wait for a free place).
  public internal(set) var inFlight: [Item] = []
  /// Changes waiting for other objects.
  public internal(set) var blocked: [Blocked] = []
  /// Changes waiting on an object whose change failed for good.
  public internal(set) var waitingOnFailure: [WaitingOnFailure] = []
  /// Changes waiting to retry.
  public internal(set) var retrying: [Retrying] = []
  /// Objects whose change failed for good.
  public internal(set) var failed: [Failure] = []

  /// Creates an empty snapshot.
  public init() {}

  /// Whether nothing is left to do or to report.
  public var isEmpty: Bool {
    isIdle && failed.isEmpty && waitingOnFailure.isEmpty
  }

  /// Whether the engine has nothing left to do by itself: nothing ready, in flight, blocked or
  /// retrying.
  ///
  /// Failed changes, and changes waiting on them, wait for the app, so they do not count.
  public var isIdle: Bool {
    pending.isEmpty && inFlight.isEmpty && blocked.isEmpty && retrying.isEmpty
  }

  /// One line: `2 pending, 1 in flight, 1 blocked, 0 waiting on failures, 0 retrying, 0 failed`.
  public var description: String {
    "\(pending.count) pending, \(inFlight.count) in flight, \(blocked.count) blocked, "
      + "\(waitingOnFailure.count) waiting on failures, \(retrying.count) retrying, "
      + "\(failed.count) failed"
  }
}
