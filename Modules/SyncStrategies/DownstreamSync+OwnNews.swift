import EventParsing
import Foundation
import Models
import UserParsing

/// News of the user's own changes read after their answers (`SyncMetadata`'s records of answers
/// awaiting news): older news of the same keys leave them as the answers set them.
extension DownstreamSync {
  /// The members of a member event that changes of the self user, answered before their news
  /// were read, name: the event is older than those answers, and moves none of them.
  ///
  /// The news of such a change end its wait (for a change the backend answered as made already,
  /// news of anyone moving those members), and are applied as news of another user's would
  /// be, except for members a later answered change names: the group here may not show the
  /// change yet (news dropped it with the group while the request was out).
  static func membersAwaitingNews(
    _ change: ConversationEvent<[UUID]>, joined: Bool, in context: ModelContext
  ) -> Set<UUID> {
    guard !context.syncMetadata.memberChangesAwaitingNews.isEmpty else { return [] }
    context.syncMetadata.takeMemberChange(
      of: Set(change.data), joining: joined, conversation: change.conversation,
      fromSelfUser: change.from == context.selfUser?.id)
    return context.syncMetadata.membersAwaitingNews(in: change.conversation)
  }

  /// Leaves the name and the members that changes of the self user, answered before their news
  /// were read, set where the last synchronised group has them: news of the group's creation
  /// read now are older than those answers.
  static func keepKeysAwaitingNews(
    of conversation: inout Conversation, in context: ModelContext
  ) {
    let metadata = context.syncMetadata
    guard !metadata.memberChangesAwaitingNews.isEmpty || !metadata.valueChangesAwaitingNews.isEmpty
    else { return }
    let awaiting = metadata.membersAwaitingNews(in: conversation.id)
    let nameAwaits = metadata.isAwaitingNews(of: .groupName(conversation.id))
    guard !awaiting.isEmpty || nameAwaits,
      let synchronised = context.localChanges(of: Conversation.self).originals[conversation.id]
        ?? context.object(Conversation.self, id: conversation.id)
    else { return }
    conversation.participantIDs = conversation.participantIDs.subtracting(awaiting)
      .union(synchronised.participantIDs.intersection(awaiting))
    if nameAwaits { conversation.name = synchronised.name }
  }

  /// Takes out of a `user.update` of the self user the keys whose answered values await their
  /// news, since the update is older than those answers.
  ///
  /// The news of such a value end its wait, and are applied unless a later answered value of
  /// the key waits too.
  static func passOverAnsweredValues(
    of update: inout UserUpdatePayload, in context: ModelContext
  ) {
    if let name = update.name, context.syncMetadata.passesOver(.selfName(name)) {
      update.name = nil
    }
    if let accent = update.accentID, context.syncMetadata.passesOver(.accent(accent)) {
      update.accentID = nil
    }
    if let handle = update.handle, context.syncMetadata.passesOver(.handle(handle)) {
      update.handle = nil
    }
  }

  /// Whether a rename of a group is older than an answered rename of it that awaits its news.
  ///
  /// The news of that rename end its wait, and are applied unless a later one waits too.
  static func passesOver(_ event: ConversationEvent<String>, in context: ModelContext)
    -> Bool
  {
    guard !context.syncMetadata.valueChangesAwaitingNews.isEmpty else { return false }
    if event.from == context.selfUser?.id {
      context.syncMetadata.takeValueChange(
        .groupName(conversation: event.conversation, name: event.data))
    }
    return context.syncMetadata.isAwaitingNews(of: .groupName(event.conversation))
  }

  /// Whether news of a connection are older than an answered change of its status that awaits
  /// its news.
  ///
  /// The news of that status end its wait, and are applied unless a later one waits too.
  static func passesOver(_ connection: Connection, in context: ModelContext) -> Bool {
    context.syncMetadata.passesOver(
      .connectionStatus(connection: connection.id, status: connection.status))
  }
}
