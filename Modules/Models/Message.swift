import Foundation

/// A text message in a conversation, identified by the nonce its sender's client chose, before
/// and after the backend accepted it.
public struct Message: ModelObject {
  /// How far a message got on its way to the backend.
  public enum DeliveryState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Written locally and not yet accepted by the backend.
    case pending
    /// Accepted by the backend, which gave it a server time.
    case sent
    /// The backend refused it for good; the UI offers to resend or delete.
    case failed
  }

  /// The keys of a message that can change.
  public enum Key: String, Sendable, DeclarationOrdered {
    /// ``Message/text``.
    case text
    /// ``Message/serverTime``.
    case serverTime
    /// ``Message/deliveryState``.
    case deliveryState
  }

  /// The message's id: the nonce, so that a resent message is recognised as the same one.
  public var id: UUID { nonce }
  /// The nonce the sender's client chose.
  public let nonce: UUID
  /// The conversation it belongs to.
  public let conversationID: UUID
  /// The user who wrote it.
  public let senderID: UUID
  /// When the sender wrote it, by the sender's clock; orders unsent messages.
  public let localTime: Date
  /// The text; never blank once saved.
  public var text: String
  /// When the backend accepted it; `nil` until then.
  public var serverTime: Date?
  /// How far it got on its way to the backend.
  public var deliveryState: DeliveryState

  /// Creates a message.
  public init(
    nonce: UUID, conversationID: UUID, senderID: UUID, text: String, localTime: Date,
    serverTime: Date? = nil, deliveryState: DeliveryState = .pending
  ) {
    self.nonce = nonce
    self.conversationID = conversationID
    self.senderID = senderID
    self.text = text
    self.localTime = localTime
    self.serverTime = serverTime
    self.deliveryState = deliveryState
  }

  /// The conversation the message belongs to: the parent of its place.
  package static let conversation = Relationship<Message>(
    "conversation", to: Conversation.self, targets: { [$0.conversationID] })

  /// A message's name, fields, conversation and rules: a save may not give it a blank text (a
  /// blank text the backend gave it before does not stop a change of another key), and its
  /// conversation must exist.
  public static let schema = EntitySchema<Message>(
    name: .message,
    field: { key in
      switch key {
      case .text: Field(get: { $0.text }, set: { $0.text = $1 })
      case .serverTime: Field(get: { $0.serverTime }, set: { $0.serverTime = $1 })
      case .deliveryState: Field(get: { $0.deliveryState }, set: { $0.deliveryState = $1 })
      }
    },
    relationships: [conversation],
    place: { (parent: $0.conversationID, rank: $0.displayRank) },
    parent: conversation,
    violations: { message, previous, context in
      var rules: [ValidationRule] = []
      if message.text.isBlank && previous?.text != message.text {
        rules.append(.messageTextNotEmpty)
      }
      if context.object(Conversation.self, id: message.conversationID) == nil {
        rules.append(.messageNeedsConversation(message.conversationID))
      }
      return rules
    })
}

extension EntityName {
  /// ``Message``.
  public static let message: EntityName = "Message"
}
