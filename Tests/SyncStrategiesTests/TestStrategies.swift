import CourierAPI
import Foundation
import Models
import SyncStrategies
import Testing

/// Pushes user names and accents, together, and gives up (reverts) on every refusal.
struct RevertingStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name, .accentID] }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(
      .updateSelf(SelfUpdate(name: change.object?.name, accentID: change.object?.accentID)),
      carrying: [.name, .accentID], sent: change.object)
  }

  func didFailPermanently(
    _ sent: SentChange<User>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    .revert("reverted: \(failure)")
  }
}

/// Builds a request that carries none of the keys it was asked to push: a broken strategy.
struct CarryingNothingStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name] }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(.updateSelf(SelfUpdate()), carrying: [], sent: change.object)
  }
}

/// Makes Ann wait for Bob and Bob for Ann: a cycle on purpose.
struct CyclicStrategy: UpstreamStrategy {
  let ann: UUID
  let bob: UUID

  var pushableKeys: Set<User.Key> { [.name] }

  func dependencies(of change: UpstreamChange<User>, in context: ModelContext) -> [SyncDependency] {
    [.after(ObjectReference(.user, change.id == ann ? bob : ann))]
  }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(.getUser(id: change.id), carrying: [.name], sent: change.object)
  }
}
