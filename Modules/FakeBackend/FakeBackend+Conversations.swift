import ConversationParsing
import CourierAPI
import Foundation
import JSON
import ParsingCore

/// The fake's handlers for conversations and their members.
extension FakeBackend {
  static func getConversations(_ paging: Paging, _ me: UUID, _ state: ServerState) -> Answer {
    let mine = state.conversationOrder.compactMap { state.conversations[$0] }
      .filter { $0.members.contains(me) }
    switch page(mine, id: \.id, paging: paging) {
    case .failure(let missing): return missing.answer
    case .success(let (items, hasMore)):
      let payloads = items.map { state.conversationPayload($0, for: me) }
      return .ok(.conversations(Page(elements: payloads, failures: [], hasMore: hasMore)))
    }
  }

  static func createConversation(
    _ body: NewConversation, _ me: UUID, _ state: inout ServerState
  ) -> Answer {
    if let id = body.id, let existing = state.conversations[id] {
      guard existing.creator == me else { return .error(409, .idTaken, "the id is taken") }
      return .ok(.conversation(state.conversationPayload(existing, for: me)))
    }
    if let unknown = body.users.first(where: { state.users[$0] == nil }) {
      return .notFound("user \(unknown.lowercasedText)")
    }
    let conversation = state.createConversation(
      id: body.id, type: .group, name: body.name, creator: me, members: body.users)
    return .ok(.conversation(state.conversationPayload(conversation, for: me)), status: 201)
  }

  /// The conversation `id`, if self may act on it: 404 if it does not exist, 403 if self is not
  /// a member.
  static func memberConversation(_ id: UUID, _ me: UUID, _ state: ServerState)
    -> Result<ServerState.Conversation, AnswerError>
  {
    guard let conversation = state.conversations[id] else {
      return .failure(AnswerError(answer: .notFound("conversation \(id.lowercasedText)")))
    }
    guard conversation.members.contains(me) else {
      return .failure(AnswerError(answer: .error(403, .accessDenied, "self is not a member")))
    }
    return .success(conversation)
  }

  static func renameConversation(
    _ id: UUID, _ name: String, _ me: UUID, _ state: inout ServerState
  ) -> Answer {
    if case .failure(let refusal) = memberConversation(id, me, state) { return refusal.answer }
    state.rename(id, to: name, by: me)
    return .ok(.renamed(ConversationRename(name: name)))
  }

  static func addMembers(_ users: [UUID], to id: UUID, _ me: UUID, _ state: inout ServerState)
    -> Answer
  {
    if case .failure(let refusal) = memberConversation(id, me, state) { return refusal.answer }
    if let unknown = users.first(where: { state.users[$0] == nil }) {
      return .notFound("user \(unknown.lowercasedText)")
    }
    let added = state.addMembers(users, to: id, by: me)
    return added.isEmpty ? .ok(.noContent) : .ok(.membersChanged(MembersChanged(userIDs: added)))
  }

  static func removeMembers(
    _ users: [UUID], from id: UUID, _ me: UUID, _ state: inout ServerState
  ) -> Answer {
    // Leaving a conversation self already left changes nothing: a resend of a lost answer.
    if users == [me], let conversation = state.conversations[id], !conversation.members.contains(me)
    {
      return .ok(.noContent)
    }
    if case .failure(let refusal) = memberConversation(id, me, state) { return refusal.answer }
    if let unknown = users.first(where: { state.users[$0] == nil }) {
      return .notFound("user \(unknown.lowercasedText)")
    }
    let removed = state.removeMembers(users, from: id, by: me)
    return removed.isEmpty
      ? .ok(.noContent) : .ok(.membersChanged(MembersChanged(userIDs: removed)))
  }

  /// A refusal a helper found before the handler got to its work.
  struct AnswerError: Error {
    let answer: Answer
  }
}
