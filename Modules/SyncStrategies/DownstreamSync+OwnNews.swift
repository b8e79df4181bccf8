import EventParsing
import Foundation
import Models
import UserParsing

/// News of the user's own changes read after their answers (`SyncMetadata.awaitedNews`): news of
/// the same keys below an answer's version are older, and leave the keys as the answer set them.
extension DownstreamSync {
  /// The members of a member event that answered changes of this device moved after it: the
  /// event is older than those answers, and moves none of them.
  static func membersPassedOver(_ change: ConversationEvent<[UUID]>, in context: ModelContext)
    -> Set<UUID>
  {
    guard !context.syncMetadata.awaitedNews.isEmpty else { return [] }
    return Set(
      change.data.filter {
        context.syncMetadata.passesOver(
          .member($0, conversation: change.conversation), heard: context.news)
      })
  }

  /// Leaves the name and the members that answered changes of this device set after news of the
  /// group's making as those answers set them, even where news dropped the group since.
  static func keepKeysAwaitingNews(
    of conversation: inout Conversation, in context: ModelContext
  ) {
    let metadata = context.syncMetadata
    guard !metadata.answeredValues.isEmpty else { return }
    for key in metadata.answeredValues.keys {
      switch (key, metadata.answeredValue(of: key, after: context.news)) {
      case (.groupName(conversation.id), .name(let name)?):
        conversation.name = name
      case (.member(let user, conversation.id), .member(true)?):
        conversation.participantIDs.insert(user)
      case (.member(let user, conversation.id), .member(false)?):
        conversation.participantIDs.remove(user)
      default:
        break
      }
    }
  }

  /// Leaves the self user's keys that answered changes of this device set after a read of
  /// their profile as the last synchronised profile has them.
  static func keepKeysAwaitingNews(of user: inout User, in context: ModelContext) {
    let metadata = context.syncMetadata
    guard !metadata.awaitedNews.isEmpty,
      let synchronised = context.lastSynchronised(User.self, id: user.id)
    else { return }
    if metadata.isAnswered(.selfName, after: context.news) { user.name = synchronised.name }
    if metadata.isAnswered(.accent, after: context.news) { user.accentID = synchronised.accentID }
    if metadata.isAnswered(.handle, after: context.news) { user.handle = synchronised.handle }
  }

  /// Leaves the status of `connection` as the last synchronised connection has it, where an
  /// answered change of this device set it after the news or lists being read.
  static func keepStatusAwaitingNews(of connection: inout Connection, in context: ModelContext) {
    guard !context.syncMetadata.awaitedNews.isEmpty,
      context.syncMetadata.isAnswered(.connectionStatus(connection.id), after: context.news),
      let synchronised = context.lastSynchronised(Connection.self, id: connection.id)
    else { return }
    connection.status = synchronised.status
  }

  /// Takes out of a `user.update` of the self user the keys that answered changes of this
  /// device set after it.
  static func passOverAnsweredValues(
    of update: inout UserUpdatePayload, in context: ModelContext
  ) {
    guard !context.syncMetadata.awaitedNews.isEmpty else { return }
    if update.name != nil, context.syncMetadata.passesOver(.selfName, heard: context.news) {
      update.name = nil
    }
    if update.accentID != nil, context.syncMetadata.passesOver(.accent, heard: context.news) {
      update.accentID = nil
    }
    if update.handle != nil, context.syncMetadata.passesOver(.handle, heard: context.news) {
      update.handle = nil
    }
  }
}
