import Foundation

/// A conversation between users: a group, the self user's notes, a one-to-one chat, or the
/// conversation that stands for a connection request.
public struct Conversation: ModelObject {
  /// The kinds of conversation, numbered as the backend numbers them.
  public enum Kind: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Any number of participants, with a name.
    case group = 0
    /// The self user alone.
    case selfConversation = 1
    /// Two connected users.
    case oneToOne = 2
    /// A connection request that has not been accepted yet.
    case connection = 3
  }

  /// The keys of a conversation that can change.
  public enum Key: String, Sendable, DeclarationOrdered {
    /// ``Conversation/kind``.
    case kind
    /// ``Conversation/name``.
    case name
    /// ``Conversation/participantIDs``.
    case participantIDs
    /// ``Conversation/lastEventTime``.
    case lastEventTime
  }

  /// The conversation's id.
  public let id: UUID
  /// The user who created it.
  public let creatorID: UUID
  /// What kind of conversation this is; a connection conversation becomes one-to-one.
  public var kind: Kind
  /// The name, if it has one; a name that is set is never blank once saved.
  public var name: String?
  /// The users taking part, the self user included.
  public var participantIDs: Set<UUID>
  /// When the last event in the conversation happened.
  public var lastEventTime: Date

  /// Creates a conversation.
  public init(
    id: UUID, kind: Kind, name: String? = nil, creatorID: UUID, participantIDs: Set<UUID>,
    lastEventTime: Date
  ) {
    self.id = id
    self.kind = kind
    self.name = name
    self.creatorID = creatorID
    self.participantIDs = participantIDs
    self.lastEventTime = lastEventTime
  }

  /// The users taking part.
  package static let participants = Relationship<Conversation>("participants", to: User.self) {
    Array($0.participantIDs)
  }

  /// A conversation's name, fields, participants and rules: a save may not give it a blank name
  /// (a blank name the backend gave it before does not stop a change of another key), and only a
  /// group can be deleted, which means leaving it.
  public static let schema = EntitySchema<Conversation>(
    name: .conversation,
    field: { key in
      switch key {
      case .kind: Field(get: { $0.kind }, set: { $0.kind = $1 })
      case .name: Field(get: { $0.name }, set: { $0.name = $1 })
      case .participantIDs: Field(get: { $0.participantIDs }, set: { $0.participantIDs = $1 })
      case .lastEventTime: Field(get: { $0.lastEventTime }, set: { $0.lastEventTime = $1 })
      }
    },
    relationships: [participants],
    violations: { conversation, previous, _ in
      guard let name = conversation.name, name.isBlank, previous?.name != name else { return [] }
      return [.nameNotEmpty(.conversation)]
    },
    deletionViolations: { conversation, _ in
      conversation.kind == .group
        ? [] : [.deletionNotSynchronisable(.conversation, reason: "only a group can be left")]
    })
}

extension EntityName {
  /// ``Conversation``.
  public static let conversation: EntityName = "Conversation"
}
