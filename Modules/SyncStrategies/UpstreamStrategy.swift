import CourierAPI
import Foundation
import Models

/// Turns local changes of one entity into calls of the API, and answers back into model changes.
///
/// A strategy holds no state: everything that changes between requests (what is in flight,
/// what waits to retry) lives in ``UpstreamObjectSync``, and what failed for good is kept in the
/// change log. The tracker finds a strategy by its entity.
public protocol UpstreamStrategy: Sendable {
  /// The entity the strategy pushes.
  associatedtype Object: ModelObject

  /// The keys this strategy pushes; changes of other keys are local and are taken off the log.
  var pushableKeys: Set<Object.Key> { get }

  /// Whether the backend keeps `object` at all (only the self user's profile, say); changes of
  /// other objects are local.
  func isSynchronised(_ object: Object, in context: ModelContext) -> Bool

  /// Where `object`'s change goes among ready changes of this entity: ascending, ties by id.
  func order(of object: Object) -> Double

  /// What must happen on the backend before `change` may be sent.
  func dependencies(of change: UpstreamChange<Object>, in context: ModelContext)
    -> [SyncDependency]

  /// What must happen before each of `changes`, in the same order: the tracker asks once per
  /// plan, so a strategy whose dependencies relate the changes to each other can work them out
  /// together. By default each change is asked about on its own.
  func dependencies(of changes: [UpstreamChange<Object>], in context: ModelContext)
    -> [[SyncDependency]]

  /// The call that pushes `change`, or that nothing needs sending.
  ///
  /// For an update, the call may carry only some of `change.keys`; the others stay pending and
  /// go in the next call.
  func action(for change: UpstreamChange<Object>, in context: ModelContext) throws
    -> UpstreamAction<Object>

  /// What the backend holds for the sent keys after a successful `response`, when it is not
  /// simply what was sent; `nil` means what was sent.
  ///
  /// An insert resent after a lost answer is answered with the backend's first version, not the
  /// resent one: keys changed in between must stay pending, so they are settled against this.
  /// A request that changes the backend's value relatively (adding members) is applied to what
  /// the backend holds now, which remote changes may have moved since it was sent.
  func acknowledgement(
    of sent: SentChange<Object>, response: EndpointResponse, in context: ModelContext
  ) -> Acknowledgement<Object>?

  /// Applies what a successful answer says (a server time, a conversation id) to the sync
  /// context.
  func didSucceed(_ sent: SentChange<Object>, response: EndpointResponse, in context: ModelContext)

  /// Decides what a permanent refusal means, and records it on the object where the UI shows it.
  func didFailPermanently(
    _ sent: SentChange<Object>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision

  /// Prepares the object `id` to be sent again after the app retries a refused change.
  func willRetry(_ id: UUID, in context: ModelContext)
}

extension UpstreamStrategy {
  /// Every object of the entity is synchronised unless the strategy says otherwise.
  public func isSynchronised(_ object: Object, in context: ModelContext) -> Bool { true }

  /// By id alone unless the strategy says otherwise.
  public func order(of object: Object) -> Double { 0 }

  /// No dependencies unless the strategy says otherwise.
  public func dependencies(of change: UpstreamChange<Object>, in context: ModelContext)
    -> [SyncDependency]
  { [] }

  /// Each change's own dependencies.
  public func dependencies(of changes: [UpstreamChange<Object>], in context: ModelContext)
    -> [[SyncDependency]]
  {
    changes.map { dependencies(of: $0, in: context) }
  }

  /// What was sent, unless the strategy reads the answer.
  public func acknowledgement(
    of sent: SentChange<Object>, response: EndpointResponse, in context: ModelContext
  ) -> Acknowledgement<Object>? { nil }

  /// Nothing to apply unless the strategy says otherwise.
  public func didSucceed(
    _ sent: SentChange<Object>, response: EndpointResponse, in context: ModelContext
  ) {}

  /// Records the failure with its reason unless the strategy says otherwise.
  public func didFailPermanently(
    _ sent: SentChange<Object>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    .markFailed("\(failure)")
  }

  /// Nothing to prepare unless the strategy says otherwise.
  public func willRetry(_ id: UUID, in context: ModelContext) {}
}
