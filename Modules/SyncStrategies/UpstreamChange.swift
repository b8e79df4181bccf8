import Foundation
import Models

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
  /// The keys to push: every key of an insert, the changed keys of an update, none for a delete.
  public let keys: Set<Object.Key>

  /// Creates a change.
  public init(kind: UpstreamChangeKind, id: UUID, object: Object?, keys: Set<Object.Key>) {
    self.kind = kind
    self.id = id
    self.object = object
    self.keys = keys
  }
}

/// What a strategy decides when the backend refused a change for good.
public enum PermanentFailureDecision: Sendable, Hashable {
  /// Keep the local value and mark the object failed with this reason, visible to the UI; the
  /// change is not retried until the object changes again.
  case markFailed(String)
  /// Give the change up and take the server's value back at the next fetch; the reason is kept
  /// in the failed list so the UI can say what happened.
  case revert(String)
}
