import CourierAPI
import Foundation
import Models
import SyncStrategies
import Testing
import UpstreamModelCheck

/// A deliberately broken self-user strategy: it claims to carry every changed key but sends
/// only the name, so an accent change is cleared without reaching the backend.
struct NameOnlySelfUserStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name, .accentID] }

  func isSynchronised(_ object: User, in context: ModelContext) -> Bool { object.isSelf }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    guard change.kind == .update, let user = change.object else { return .localOnly }
    return .send(.updateSelf(SelfUpdate(name: user.name)), carrying: change.keys, sent: user)
  }
}

/// A deliberately broken message strategy: messages wait for nothing and go newest first.
struct NewestFirstMessageStrategy: UpstreamStrategy {
  var pushableKeys: Set<Message.Key> { [] }

  func order(of object: Message) -> Double { -object.localTime.timeIntervalSince1970 }

  func action(for change: UpstreamChange<Message>, in context: ModelContext)
    -> UpstreamAction<Message>
  {
    guard change.kind == .insert, let message = change.object else { return .localOnly }
    return .send(
      .postMessage(
        conversation: message.conversationID, NewMessage(nonce: message.nonce, text: message.text)),
      carrying: change.keys, sent: message)
  }
}

/// A client with one deliberately broken strategy, and the words of the rule that must catch it.
struct BrokenClient: Sendable, CustomTestStringConvertible {
  let name: String
  let strategies: [any UpstreamStrategy]
  let brokenRule: String

  var testDescription: String { name }

  static let all = [
    BrokenClient(
      name: "accent cleared without being sent",
      strategies: [
        NameOnlySelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(),
        MessageStrategy(),
      ], brokenRule: "not pending"),
    BrokenClient(
      name: "messages sent newest first",
      strategies: [
        SelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(),
        NewestFirstMessageStrategy(),
      ], brokenRule: "out of the order they were written"),
  ]
}
