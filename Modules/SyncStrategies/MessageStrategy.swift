import ConversationParsing
import CourierAPI
import Foundation
import Models

/// Sends the self user's messages with `POST /conversations/{id}/messages {nonce, text}`, and
/// deletes them for everyone with `DELETE /conversations/{id}/messages/{nonce}`.
///
/// The nonce makes a resend after a lost response safe: the backend answers the first message
/// again and creates nothing. A message waits for its conversation to exist on the backend and
/// goes after every earlier unsent message of the conversation, so messages reach the backend in
/// the order they were written; a message refused for good is skipped, not waited for.
public struct MessageStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Nothing: a sent message does not change.
  public var pushableKeys: Set<Message.Key> { [] }

  /// Only the self user's messages are sent and deleted on the backend.
  public func isSynchronised(_ object: Message, in context: ModelContext) -> Bool {
    context.selfUser.map { $0.id == object.senderID } ?? false
  }

  /// In the order they were written.
  public func order(of object: Message) -> Double {
    object.localTime.timeIntervalSince1970
  }

  /// The conversation must exist, and every earlier unsent message of it goes first.
  public func dependencies(of change: UpstreamChange<Message>, in context: ModelContext)
    -> [SyncDependency]
  {
    guard change.kind == .insert, let message = change.object else { return [] }
    let earlier = context.messages(inConversationWithID: message.conversationID).filter {
      $0.serverTime == nil
        && ($0.localTime, $0.nonce.uuidString) < (message.localTime, message.nonce.uuidString)
    }
    return [.exists(ObjectReference(.conversation, message.conversationID))]
      + earlier.map { .after(ObjectReference(.message, $0.id)) }
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

  /// Takes the server time and marks the message sent.
  public func didSucceed(
    _ sent: SentChange<Message>, response: EndpointResponse, in context: ModelContext
  ) {
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
    if sent.kind == .delete && failure.status == 404 { return .alreadyApplied }
    if sent.kind == .insert {
      _ = try? context.update(Message.self, id: sent.id) { $0.deliveryState = .failed }
    }
    return .markFailed("\(failure)")
  }

  /// Shows the message as pending again.
  public func willRetry(_ id: UUID, in context: ModelContext) {
    _ = try? context.update(Message.self, id: id) { $0.deliveryState = .pending }
  }
}
