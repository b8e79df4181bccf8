import ConnectionParsing
import ConversationParsing
import Foundation
import Models
import UserParsing

/// How backend payloads become model objects.
public enum PayloadMapping {
  /// The user a payload describes.
  public static func user(_ payload: UserPayload, isSelf: Bool) -> User {
    User(
      id: payload.id, isSelf: isSelf, name: payload.name, handle: payload.handle,
      accentID: payload.accentID, email: payload.email)
  }

  /// The connection a payload describes; a status this client does not know becomes `invalid`.
  public static func connection(_ payload: ConnectionPayload) -> Connection {
    Connection(
      from: payload.from, to: payload.to,
      status: Connection.Status(backendValue: payload.status.rawValue),
      conversationID: payload.conversation, lastUpdate: payload.lastUpdate,
      message: payload.message)
  }

  /// The conversation a payload describes, the self member among its participants.
  public static func conversation(_ payload: ConversationPayload) -> Conversation {
    Conversation(
      id: payload.id, kind: Conversation.Kind(rawValue: payload.type.rawValue) ?? .group,
      name: payload.name, creatorID: payload.creator,
      participantIDs: Set(payload.otherMembers + [payload.selfMember]),
      lastEventTime: payload.lastEventTime)
  }

  /// The message a payload describes, as sent.
  public static func message(_ payload: MessagePayload) -> Message {
    Message(
      nonce: payload.nonce, conversationID: payload.conversation, senderID: payload.from,
      text: payload.text, localTime: payload.time, serverTime: payload.time,
      deliveryState: .sent)
  }
}
