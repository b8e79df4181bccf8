import ConversationParsing
import Foundation
import HTTPRequest
import JSON
import Models
import ParsingCore
import Transport

/// Sends the self user's messages: `POST /conversations/{id}/messages {nonce, text}`.
///
/// The nonce makes a resend after a lost response safe: the backend answers the first message
/// again and creates nothing. A message waits for its conversation and for every earlier message
/// of the conversation, so messages reach the backend in the order they were written.
public struct MessageStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Nothing: a sent message does not change.
  public var pushableKeys: Set<Message.Key> { [] }

  /// Only the self user's messages are sent.
  public func isSynchronised(_ object: Message, in context: ModelContext) -> Bool {
    context.selfUser.map { $0.id == object.senderID } ?? false
  }

  /// In the order they were written.
  public func order(of object: Message) -> Double {
    object.localTime.timeIntervalSince1970
  }

  /// The conversation, and every earlier message of the conversation.
  public func dependencies(of change: UpstreamChange<Message>, in context: ModelContext)
    -> [ObjectReference]
  {
    guard let message = change.object else { return [] }
    let earlier = context.messages(inConversationWithID: message.conversationID).filter {
      $0.serverTime == nil
        && ($0.localTime, $0.nonce.uuidString) < (message.localTime, message.nonce.uuidString)
    }
    return [ObjectReference(.conversation, message.conversationID)]
      + earlier.map { ObjectReference(.message, $0.id) }
  }

  /// `POST` with the nonce and the text.
  public func request(for change: UpstreamChange<Message>, in context: ModelContext) throws
    -> HTTPRequest?
  {
    guard change.kind == .insert, let message = change.object else { return nil }
    return try HTTPRequest(
      .post, "/conversations/\(message.conversationID)/messages",
      json: ["nonce": message.nonce.jsonValue, "text": .string(message.text)])
  }

  /// Takes the server time and marks the message sent.
  public func didSucceed(
    _ change: UpstreamChange<Message>, response: TransportResponse, in context: ModelContext
  ) {
    let payload = (try? response.json()).flatMap { try? MessagePayload.parse($0) }
    _ = try? context.update(Message.self, id: change.id) { message in
      message.serverTime = payload?.time ?? message.localTime
      message.deliveryState = .sent
    }
  }

  /// Marks the message failed, so the UI can offer to resend it.
  public func didFailPermanently(
    _ change: UpstreamChange<Message>, response: TransportResponse?, reason: String,
    in context: ModelContext
  ) -> PermanentFailureDecision {
    _ = try? context.update(Message.self, id: change.id) { $0.deliveryState = .failed }
    return .markFailed(reason)
  }
}
