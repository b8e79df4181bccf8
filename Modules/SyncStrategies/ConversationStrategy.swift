import CourierAPI
import Foundation
import Models

/// Pushes groups: `POST /conversations` (with the client's id) for a new one,
/// `PUT /conversations/{id}` for a new name, `POST`/`DELETE /conversations/{id}/members` for
/// participants added or removed since the last synchronised value, and leaving a deleted group
/// with `DELETE /conversations/{id}/members` for the self user.
///
/// A new name and new participants go in separate requests, which may be in flight at once:
/// they carry different keys. A group waits for the connections of its participants to exist on
/// the backend first.
public struct ConversationStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Name and participants.
  public var pushableKeys: Set<Conversation.Key> { [.name, .participantIDs] }

  /// Only groups are made, changed and left by the client; the backend makes the other kinds.
  public func isSynchronised(_ object: Conversation, in context: ModelContext) -> Bool {
    object.kind == .group
  }

  /// The connections of the participants (other than self) must exist first.
  public func dependencies(of change: UpstreamChange<Conversation>, in context: ModelContext)
    -> [SyncDependency]
  {
    guard let conversation = change.object,
      change.kind == .insert || change.keys.contains(.participantIDs)
    else { return [] }
    let me = context.selfUser?.id
    return conversation.participantIDs.filter { $0 != me }.sorted { $0.precedes($1) }
      .map { .exists(ObjectReference(.connection, $0)) }
  }

  /// The call for a new group, a new name, a change of participants (additions first), or
  /// leaving.
  public func action(for change: UpstreamChange<Conversation>, in context: ModelContext)
    -> UpstreamAction<Conversation>
  {
    let me = context.selfUser?.id
    switch change.kind {
    case .delete:
      guard let me else { return .localOnly }
      return .send(
        .removeMembers(conversation: change.id, MemberList(users: [me])), carrying: [], sent: nil)
    case .insert:
      guard let conversation = change.object else { return .localOnly }
      let others = conversation.participantIDs.filter { $0 != me }.sorted { $0.precedes($1) }
      return .send(
        .createConversation(
          NewConversation(id: conversation.id, name: conversation.name, users: others)),
        carrying: change.keys, sent: conversation)
    case .update:
      guard let conversation = change.object else { return .localOnly }
      if change.keys.contains(.name), let name = conversation.name {
        return .send(
          .renameConversation(id: conversation.id, ConversationRename(name: name)),
          carrying: [.name], sent: conversation)
      }
      return membersAction(conversation, synchronised: change.lastKnown ?? conversation)
    }
  }

  /// Adds the participants added since `synchronised`, or, when none were, removes those removed.
  ///
  /// After additions the backend holds the old participants plus the new ones, so the key stays
  /// pending until the removals went too.
  private func membersAction(_ conversation: Conversation, synchronised: Conversation)
    -> UpstreamAction<Conversation>
  {
    let added = conversation.participantIDs.subtracting(synchronised.participantIDs)
      .sorted { $0.precedes($1) }
    let removed = synchronised.participantIDs.subtracting(conversation.participantIDs)
      .sorted { $0.precedes($1) }
    var sent = conversation
    if !added.isEmpty {
      sent.participantIDs = synchronised.participantIDs.union(added)
      return .send(
        .addMembers(conversation: conversation.id, MemberList(users: added)),
        carrying: [.participantIDs], sent: sent)
    }
    guard !removed.isEmpty else { return .localOnly }
    return .send(
      .removeMembers(conversation: conversation.id, MemberList(users: removed)),
      carrying: [.participantIDs], sent: conversation)
  }

  /// A group that is already gone, or already left, needs no leaving.
  public func didFailPermanently(
    _ sent: SentChange<Conversation>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    if sent.kind == .delete && failure.status == 404 { return .alreadyApplied }
    return .markFailed("\(failure)")
  }
}
