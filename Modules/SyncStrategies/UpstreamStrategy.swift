import Foundation
import HTTPRequest
import Models
import Transport

/// Turns local changes of one entity into requests, and responses back into model changes.
///
/// A strategy holds no state: everything that changes between requests lives in
/// ``UpstreamObjectSync``, which asks the strategy what to send.
public protocol UpstreamStrategy: Sendable {
  /// The entity the strategy pushes.
  associatedtype Object: ModelObject

  /// The keys this strategy knows how to push; other local changes stay local.
  var pushableKeys: Set<Object.Key> { get }

  /// Whether the backend should hear about `object` at all (only the self user's profile, say).
  func isSynchronised(_ object: Object, in context: ModelContext) -> Bool

  /// Where `object`'s change goes among ready changes of this entity: ascending, ties broken by
  /// id.
  func order(of object: Object) -> Double

  /// The objects that must have no pending changes before `change` may be sent.
  func dependencies(of change: UpstreamChange<Object>, in context: ModelContext)
    -> [ObjectReference]

  /// The request that pushes `change`, or `nil` if nothing needs to be sent after all (the
  /// change is then treated as synchronised).
  func request(for change: UpstreamChange<Object>, in context: ModelContext) throws
    -> HTTPRequest?

  /// The object as the backend will hold it once `change` succeeds; usually the object itself.
  func sentValue(for change: UpstreamChange<Object>, in context: ModelContext) -> Object?

  /// Applies what a successful response says (a server time, a conversation id) to the sync
  /// context.
  func didSucceed(
    _ change: UpstreamChange<Object>, response: TransportResponse, in context: ModelContext)

  /// Decides what a permanent refusal means, and records it on the object where the UI shows it.
  func didFailPermanently(
    _ change: UpstreamChange<Object>, response: TransportResponse?, reason: String,
    in context: ModelContext
  ) -> PermanentFailureDecision
}

extension UpstreamStrategy {
  /// Every object of the entity is synchronised unless the strategy says otherwise.
  public func isSynchronised(_ object: Object, in context: ModelContext) -> Bool { true }

  /// By id alone unless the strategy says otherwise.
  public func order(of object: Object) -> Double { 0 }

  /// The object itself unless the strategy says otherwise.
  public func sentValue(for change: UpstreamChange<Object>, in context: ModelContext) -> Object? {
    change.object
  }

  /// No dependencies unless the strategy says otherwise.
  public func dependencies(of change: UpstreamChange<Object>, in context: ModelContext)
    -> [ObjectReference]
  { [] }

  /// Nothing to apply unless the strategy says otherwise.
  public func didSucceed(
    _ change: UpstreamChange<Object>, response: TransportResponse, in context: ModelContext
  ) {}

  /// Marks the object failed with the reason unless the strategy says otherwise.
  public func didFailPermanently(
    _ change: UpstreamChange<Object>, response: TransportResponse?, reason: String,
    in context: ModelContext
  ) -> PermanentFailureDecision {
    .markFailed(reason)
  }
}
