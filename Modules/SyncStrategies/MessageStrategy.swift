import ConversationParsing
import CourierAPI
import Foundation
import Models
import ParsingCore

/// Sends the self user's messages with `POST /conversations/{id}/messages {nonce, text}`, and
/// deletes them for everyone with `DELETE /conversations/{id}/messages/{nonce}`.
///
/// The nonce makes a resend after a lost response safe: the backend answers the first message
/// again and creates nothing. A message waits for its conversation to exist on the backend and
/// goes after the nearest earlier unsent message of the conversation, which goes after its own:
/// messages reach the backend in the order they were written. A message refused for good is
/// skipped, not waited for.
public struct MessageStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Nothing: a sent message does not change.
  public var pushableKeys: Set<Message.Key> { [] }

  /// Only the self user's messages are sent and deleted on the backend; before the self user is
  /// known, a message the app wrote counts as the self user's, so it is never dropped.
  public func isSynchronised(_ object: Message, in context: ModelContext) -> Bool {
    context.selfUser.map { $0.id == object.senderID } ?? true
  }

  /// In the order they were written.
  public func order(of object: Message) -> Double {
    object.localTime.timeIntervalSince1970
  }

  /// The conversation must exist, and the nearest earlier unsent message of it that was not
  /// refused goes first; that one follows its own predecessor, so the order holds throughout.
  public func dependencies(of change: UpstreamChange<Message>, in context: ModelContext)
    -> [SyncDependency]
  {
    dependencies(of: [change], in: context)[0]
  }

  /// Every unsent message of each conversation is ordered once, and each change follows the one
  /// before it; the cost grows with the number of unsent messages, not with its square.
  public func dependencies(of changes: [UpstreamChange<Message>], in context: ModelContext)
    -> [[SyncDependency]]
  {
    let unsent = context.localChanges(of: Message.self)
    let lookUp = context.lookUp(Message.self)
    var byConversation: [UUID: [Message]] = [:]
    for id in unsent.inserted where unsent.failures[id] == nil {
      if let message = lookUp(id) {
        byConversation[message.conversationID, default: []].append(message)
      }
    }
    var predecessor: [UUID: UUID] = [:]
    for messages in byConversation.values where messages.count > 1 {
      let ordered = messages.sorted { lhs, rhs in
        lhs.localTime != rhs.localTime ? lhs.localTime < rhs.localTime : lhs.nonce < rhs.nonce
      }
      for index in ordered.indices.dropFirst() {
        predecessor[ordered[index].id] = ordered[index - 1].id
      }
    }
    return changes.map { change in
      guard change.kind == .insert, let message = change.object else { return [] }
      return [.exists(ObjectReference(.conversation, message.conversationID))]
        + (predecessor[message.id].map { [.after(ObjectReference(.message, $0))] } ?? [])
    }
  }

  /// `POST` with the nonce and the text; `DELETE` for a message deleted while its conversation
  /// is still there (deleted with its conversation, it is only removed here).
  public func action(for change: UpstreamChange<Message>, in context: ModelContext)
    -> UpstreamAction<Message>
  {
    switch change.kind {
    case .insert:
      guard let message = change.object else { return .localOnly }
      return .send(
        .postMessage(
          conversation: message.conversationID, NewMessage(nonce: message.nonce, text: message.text)
        ),
        carrying: change.keys, sent: message)
    case .delete:
      guard let message = change.lastKnown,
        context.object(Conversation.self, id: message.conversationID) != nil
      else { return .localOnly }
      return .send(
        .deleteMessage(conversation: message.conversationID, nonce: message.nonce), carrying: [],
        sent: nil)
    case .update:
      return .localOnly
    }
  }

  /// Takes the server time and marks the message sent; after a deletion, makes sure the
  /// message is gone here too.
  public func didSucceed(
    _ sent: SentChange<Message>, response: EndpointResponse, in context: ModelContext
  ) {
    if sent.kind == .delete { forgetDeleted(sent, in: context) }
    guard sent.kind == .insert else { return }
    var serverTime: Date?
    if case .message(let payload) = response { serverTime = payload.time }
    _ = try? context.update(Message.self, id: sent.id) { message in
      message.serverTime = serverTime ?? message.localTime
      message.deliveryState = .sent
    }
  }

  /// Marks a refused message failed, so the UI can offer to retry or discard it; a deletion of a
  /// message that is already gone is done.
  public func didFailPermanently(
    _ sent: SentChange<Message>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    if sent.kind == .delete && failure.status == 404 {
      forgetDeleted(sent, in: context)
      return .alreadyApplied
    }
    if sent.kind == .insert {
      _ = try? context.update(Message.self, id: sent.id) { $0.deliveryState = .failed }
    }
    return .markFailed("\(failure)")
  }

  /// Removes a message the backend no longer holds, once its deletion is answered, if news
  /// brought it back here while the deletion was out.
  ///
  /// News of the self user's removal from a group drop the group with its messages and their
  /// unsent changes, this deletion among them; news of their return and of the message, pulled
  /// in the same page, then bring both back as the backend held them before the deletion
  /// landed. A deleted message never comes back on the backend, so the answer is the last word.
  ///
  /// News of its posting may still be read after the answer, from a later page; the message is
  /// awaited (`SyncMetadata.awaitedNews`) so that they do not bring it back.
  private func forgetDeleted(_ sent: SentChange<Message>, in context: ModelContext) {
    context.applyRemoteDeletion(Message.self, id: sent.id)
    context.syncMetadata.awaitNews(of: .deletedMessage(sent.id), answeredAt: sent.version?.rawValue)
  }

  /// Shows the message as pending again.
  public func willRetry(_ id: UUID, in context: ModelContext) {
    _ = try? context.update(Message.self, id: id) { $0.deliveryState = .pending }
  }
}
