import Foundation
import JSON
import ParsingCore

/// The kinds of conversation, as the backend numbers them.
public enum ConversationType: Int, Sendable, Hashable, CaseIterable {
  /// A group of any size.
  case group = 0
  /// The self user's own conversation.
  case selfConversation = 1
  /// Two connected users.
  case oneToOne = 2
  /// The conversation of a pending connection request.
  case connection = 3
}

/// A conversation as the backend sends it.
///
/// ```json
/// {"id": UUID, "type": 0, "name": "Team" | null, "creator": UUID,
///  "members": {"self": {"id": UUID}, "others": [{"id": UUID}]},
///  "last_event_time": "2026-11-21T10:00:00.000Z"}
/// ```
public struct ConversationPayload: PayloadConvertible, Hashable {
  /// The conversation's id.
  public var id: UUID
  /// What kind of conversation it is.
  public var type: ConversationType
  /// Its name, if it has one.
  public var name: String?
  /// The user who created it.
  public var creator: UUID
  /// The self user's id as a member.
  public var selfMember: UUID
  /// The other members' ids, in the backend's order.
  public var otherMembers: [UUID]
  /// When the last event happened in it.
  public var lastEventTime: Date

  /// The list key of a page of conversations.
  public static let pageKey = "conversations"

  /// Creates a conversation payload.
  public init(
    id: UUID, type: ConversationType, name: String? = nil, creator: UUID, selfMember: UUID,
    otherMembers: [UUID], lastEventTime: Date
  ) {
    self.id = id
    self.type = type
    self.name = name
    self.creator = creator
    self.selfMember = selfMember
    self.otherMembers = otherMembers
    self.lastEventTime = lastEventTime
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> ConversationPayload? {
    let id = reader.uuid("id")
    let type = reader.oneOf("type", ConversationType.self)
    let name = reader.optionalString("name")
    let creator = reader.uuid("creator")
    let members = reader.object("members") { members -> (UUID, [UUID])? in
      let selfMember = members.object("self") { $0.uuid("id") }
      let others = members.objects("others") { $0.uuid("id") }
      guard let selfMember, let others else { return nil }
      return (selfMember, others)
    }
    let lastEventTime = reader.date("last_event_time")
    guard let id, let type, let name, let creator, let members, let lastEventTime else {
      return nil
    }
    return ConversationPayload(
      id: id, type: type, name: name, creator: creator, selfMember: members.0,
      otherMembers: members.1, lastEventTime: lastEventTime)
  }

  /// The payload as the backend writes it.
  public var jsonValue: JSONValue {
    [
      "id": id.jsonValue, "type": .integer(type.rawValue),
      "name": name.map(JSONValue.string) ?? .null,
      "creator": creator.jsonValue,
      "members": [
        "self": ["id": selfMember.jsonValue],
        "others": .array(otherMembers.map { ["id": $0.jsonValue] }),
      ],
      "last_event_time": lastEventTime.jsonValue,
    ]
  }
}
