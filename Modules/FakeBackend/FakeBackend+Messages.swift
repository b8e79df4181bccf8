import ConversationParsing
import CourierAPI
import Foundation
import JSON

/// The fake's handlers for messages.
extension FakeBackend {
  static func postMessage(_ body: NewMessage, in id: UUID, _ me: UUID, _ state: inout ServerState)
    -> Answer
  {
    if case .failure(let refusal) = memberConversation(id, me, state) { return refusal.answer }
    let (message, _) = state.post(nonce: body.nonce, text: body.text, in: id, from: me)
    return .ok(.message(message), status: 201)
  }

  static func deleteMessage(
    _ nonce: UUID, in id: UUID, _ me: UUID, _ state: inout ServerState
  ) -> Answer {
    if case .failure(let refusal) = memberConversation(id, me, state) { return refusal.answer }
    guard let message = state.messages[id]?.first(where: { $0.nonce == nonce }) else {
      return .notFound("message \(nonce.lowercasedText)")
    }
    guard message.from == me else {
      return .error(403, .accessDenied, "only the sender may delete a message")
    }
    state.deleteMessage(nonce, in: id, by: me)
    return .ok(.noContent)
  }
}
