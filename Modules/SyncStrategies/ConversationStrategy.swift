import ConversationParsing
import Foundation
import HTTPRequest
import JSON
import Models
import ParsingCore
import Transport

/// Pushes groups: `POST /conversations` (with the client's id) for a new one,
/// `PUT /conversations/{id}` for a new name, and `POST`/`DELETE /conversations/{id}/members`
/// for participants added or removed since the last synchronised value.
///
/// A group waits for the connections of its participants to be pushed first.
public struct ConversationStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Name and participants.
  public var pushableKeys: Set<Conversation.Key> { [.name, .participantIDs] }

  /// Only groups are made by the client; the backend makes the other kinds.
  public func isSynchronised(_ object: Conversation, in context: ModelContext) -> Bool {
    object.kind == .group
  }

  /// The connections of the participants (other than self).
  public func dependencies(of change: UpstreamChange<Conversation>, in context: ModelContext)
    -> [ObjectReference]
  {
    guard let conversation = change.object,
      change.kind == .insert || change.keys.contains(.participantIDs)
    else { return [] }
    let me = context.selfUser?.id
    return conversation.participantIDs.filter { $0 != me }.sorted { $0.uuidString < $1.uuidString }
      .map { ObjectReference(.connection, $0) }
  }

  /// The request for a new group, a new name, or a change of participants (additions first).
  public func request(for change: UpstreamChange<Conversation>, in context: ModelContext) throws
    -> HTTPRequest?
  {
    guard let conversation = change.object else { return nil }
    let me = context.selfUser?.id
    switch change.kind {
    case .insert:
      var body: [String: JSONValue] = [
        "id": conversation.id.jsonValue,
        "users": .array(
          conversation.participantIDs.filter { $0 != me }.sorted { $0.uuidString < $1.uuidString }
            .map(\.jsonValue)),
      ]
      if let name = conversation.name { body["name"] = .string(name) }
      return try HTTPRequest(.post, "/conversations", json: .object(body))
    case .update where change.keys.contains(.name):
      return try HTTPRequest(
        .put, "/conversations/\(conversation.id)",
        json: ["name": conversation.name.map(JSONValue.string) ?? .null])
    case .update:
      let (added, removed) = participantChanges(of: conversation, in: context)
      let users = added.isEmpty ? removed : added
      guard !users.isEmpty else { return nil }
      return try HTTPRequest(
        added.isEmpty ? .delete : .post, "/conversations/\(conversation.id)/members",
        json: ["users": .array(users.map(\.jsonValue))])
    case .delete:
      return nil
    }
  }

  /// After additions, the backend holds the old participants plus those added; removals follow
  /// in a second request.
  public func sentValue(for change: UpstreamChange<Conversation>, in context: ModelContext)
    -> Conversation?
  {
    guard var conversation = change.object, change.kind == .update,
      !change.keys.contains(.name), change.keys.contains(.participantIDs)
    else { return change.object }
    let (added, removed) = participantChanges(of: conversation, in: context)
    if !added.isEmpty && !removed.isEmpty {
      conversation.participantIDs = conversation.participantIDs.union(removed)
    }
    return conversation
  }

  /// The participants added and removed since the last synchronised value, each sorted.
  func participantChanges(of conversation: Conversation, in context: ModelContext) -> (
    added: [UUID], removed: [UUID]
  ) {
    let synced =
      context.localChanges(of: Conversation.self).originals[conversation.id]?.participantIDs
      ?? conversation.participantIDs
    let order: (UUID, UUID) -> Bool = { $0.uuidString < $1.uuidString }
    return (
      conversation.participantIDs.subtracting(synced).sorted(by: order),
      synced.subtracting(conversation.participantIDs).sorted(by: order)
    )
  }
}
