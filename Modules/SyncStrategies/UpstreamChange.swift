import CourierAPI
import Foundation
import Models
import ParsingCore

/// What kind of local change a request pushes.
public enum UpstreamChangeKind: String, Sendable, Hashable {
  /// The object is new; the backend does not have it yet.
  case insert
  /// Some keys of the object changed.
  case update
  /// The object was deleted locally.
  case delete
}

/// One local change of one object, as a strategy turns it into a request.
public struct UpstreamChange<Object: ModelObject>: Sendable {
  /// Insert, update or delete.
  public let kind: UpstreamChangeKind
  /// The object's id.
  public let id: UUID
  /// The object as it is now; `nil` for a deletion.
  public let object: Object?
  /// The object as the backend last had it, for an update; its last value, for a deletion; `nil`
  /// for an insert.
  public let lastKnown: Object?
  /// The keys free to push: every key of an insert, the changed keys no other request carries
  /// for an update, none for a deletion.
  public let keys: Set<Object.Key>
  /// Other values the backend may hold for these keys, left by requests whose answers were
  /// lost; a request that changes the backend's value relative to what it holds must suit them
  /// all.
  public let unconfirmed: [Object]
  /// What the user's change is measured from, for an update; `nil` otherwise.
  ///
  /// It is the object as the user saw the backend hold it when they last saved these keys,
  /// moved by what the backend did since that was not the user's change. A request that changes
  /// the backend's value relative to what it holds carries what the user added and removed
  /// relative to this too, even where the backend holds it already: a save back to what a
  /// request in flight carries is a change of its own.
  public let editBase: Object?

  /// Creates a change.
  public init(
    kind: UpstreamChangeKind, id: UUID, object: Object?, lastKnown: Object? = nil,
    keys: Set<Object.Key>, unconfirmed: [Object] = [], editBase: Object? = nil
  ) {
    self.kind = kind
    self.id = id
    self.object = object
    self.lastKnown = lastKnown
    self.keys = keys
    self.unconfirmed = unconfirmed
    self.editBase = editBase
  }
}

/// What a strategy decides to do about one local change.
public enum UpstreamAction<Object: ModelObject>: Sendable {
  /// Call `endpoint`. It carries `keys` (for an update, at least one of the change's keys; the
  /// others stay pending for the next request), and once it succeeds the backend holds `sent`'s
  /// values for them.
  ///
  /// When the backend's values were uncertain before the call (an earlier answer was lost), the
  /// call may leave one of several values behind: `sent` is the one later calls can rely on,
  /// and `alsoPossible` lists the others, which later changes must also account for.
  case send(Endpoint, carrying: Set<Object.Key>, sent: Object?, alsoPossible: [Object] = [])
  /// Nothing to send: the change concerns only this device (an object the backend does not
  /// keep), and is taken off the change log.
  case localOnly
}

/// A change that was sent: what its request carried and what the backend holds once it succeeds.
public struct SentChange<Object: ModelObject>: Sendable {
  /// Insert, update or delete.
  public let kind: UpstreamChangeKind
  /// The object's id.
  public let id: UUID
  /// The keys the request carried.
  public let keys: Set<Object.Key>
  /// The object as the request sent it, if it sent one.
  public let sent: Object?
  /// The object as the backend last had it when the request was made, for an update.
  public let lastKnown: Object?
  /// The call that was made.
  public let endpoint: Endpoint
  /// The values the backend was heard to hold after it applied the request, oldest first.
  ///
  /// They come from notifications and reads pulled before the answer came, in the order of the
  /// server's versions: empty if none changed the object. For an insert, every value heard while
  /// it was out.
  ///
  /// The last synchronised value says where the backend ended; this says how it got there, so
  /// a key changed and changed back (a member added and removed again) is seen as changed.
  public let heard: [Object]
  /// Other values the backend may have held for the keys when the request went, besides
  /// ``lastKnown``: left by requests whose answers were lost, or by news read while another
  /// request was out (``UpstreamChange/unconfirmed``).
  ///
  /// A value among them, or ``lastKnown``, is one the client had heard of: news of it may have
  /// been read already.
  public let unconfirmed: [Object]
  /// The server's version once it applied the request, as its answer said; `nil` before an
  /// answer, or when the answer did not say it.
  ///
  /// The news of the change come at this version: news of its keys below it are older.
  public let version: ServerVersion?
}

/// What the backend holds for a request's keys once it succeeded, when that is not simply what
/// the request sent.
public struct Acknowledgement<Object: ModelObject>: Sendable {
  /// The value later requests rely on.
  public var value: Object
  /// Other values the backend may hold instead, which later requests must also account for.
  public var alsoPossible: [Object]

  /// Creates an acknowledgement of `value`, and of `alsoPossible` as values the backend may
  /// hold instead.
  public init(_ value: Object, alsoPossible: [Object] = []) {
    self.value = value
    self.alsoPossible = alsoPossible
  }
}

/// What a strategy decides when the backend refused a change for good.
public enum PermanentFailureDecision: Sendable, Hashable {
  /// Keep the local value and record the failure with this reason, visible in the queue; the
  /// change is not sent again until the app retries or discards it, or changes the object.
  case markFailed(String)
  /// Give the change up: its keys go back to the backend's values, and the reason is reported.
  case revert(String)
  /// The backend already holds what the change wanted (a deletion of something already gone):
  /// settle the change as if it had succeeded.
  case alreadyApplied
}

/// A request an object waits for before its own change may go.
public struct SyncDependency: Sendable, Hashable, CustomStringConvertible {
  /// How the change depends on the other object.
  public enum Kind: Sendable, Hashable {
    /// The other object must exist on the backend: the change waits while the other's insert
    /// is pending, and waits on the failure if that insert was refused for good.
    case exists
    /// The other object's pending changes go first, so the backend sees them in order; one that
    /// was refused for good is skipped.
    case after
  }

  /// The object waited for.
  public let object: ObjectReference
  /// How.
  public let kind: Kind

  /// The change needs `object` to exist on the backend first.
  public static func exists(_ object: ObjectReference) -> SyncDependency {
    SyncDependency(object: object, kind: .exists)
  }

  /// The change goes after the pending changes of `object`.
  public static func after(_ object: ObjectReference) -> SyncDependency {
    SyncDependency(object: object, kind: .after)
  }

  /// Reads as `exists Conversation 3f2a…`.
  public var description: String { "\(kind == .exists ? "exists" : "after") \(object)" }
}
