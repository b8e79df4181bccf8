import Foundation
import JSON
import ParsingCore

/// A text message as the backend sends it.
///
/// ```json
/// {"nonce": UUID, "conversation": UUID, "from": UUID, "text": "Hi",
///  "time": "2026-11-21T10:00:00.000Z"}
/// ```
///
/// The nonce is chosen by the sending client and is the message's identity before and after it
/// is sent: the backend answers a repeated nonce with the first message instead of a second one.
public struct MessagePayload: PayloadConvertible, Hashable {
  /// The client-chosen id that makes sending idempotent.
  public var nonce: UUID
  /// The conversation the message belongs to.
  public var conversation: UUID
  /// The sender.
  public var from: UUID
  /// The text; never empty.
  public var text: String
  /// When the backend received it.
  public var time: Date

  /// Creates a message payload.
  public init(nonce: UUID, conversation: UUID, from: UUID, text: String, time: Date) {
    self.nonce = nonce
    self.conversation = conversation
    self.from = from
    self.text = text
    self.time = time
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> MessagePayload? {
    let nonce = reader.uuid("nonce")
    let conversation = reader.uuid("conversation")
    let from = reader.uuid("from")
    let text = reader.string("text", nonEmpty: true)
    let time = reader.date("time")
    guard let nonce, let conversation, let from, let text, let time else { return nil }
    return MessagePayload(
      nonce: nonce, conversation: conversation, from: from, text: text, time: time)
  }

  /// The payload as the backend writes it.
  public var jsonValue: JSONValue {
    [
      "nonce": nonce.jsonValue, "conversation": conversation.jsonValue, "from": from.jsonValue,
      "text": .string(text), "time": time.jsonValue,
    ]
  }
}
