import CourierAPI
import Foundation
import Models
import SyncStrategies
import UserParsing

// Strategies broken on purpose, each in one way, to prove that the simulator's checks catch
// what they are meant to catch. None of them is fit for anything else.

/// Forgets the self user's name: the change is marked synchronised and never sent.
struct ForgetfulSelfUserStrategy: UpstreamStrategy {
  let real = SelfUserStrategy()

  var pushableKeys: Set<User.Key> { real.pushableKeys }

  func isSynchronised(_ object: User, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func action(for change: UpstreamChange<User>, in context: ModelContext)
    -> UpstreamAction<User>
  {
    change.keys.contains(.name) ? .localOnly : real.action(for: change, in: context)
  }
}

/// Never sends a group's new name and says it is settled: the group keeps it here until the
/// client next reads the group from the backend, which puts the old name back.
struct ForgetfulGroupStrategy: UpstreamStrategy {
  let real = ConversationStrategy()

  var pushableKeys: Set<Conversation.Key> { real.pushableKeys }

  func isSynchronised(_ object: Conversation, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func dependencies(of change: UpstreamChange<Conversation>, in context: ModelContext)
    -> [SyncDependency]
  {
    real.dependencies(of: change, in: context)
  }

  func action(for change: UpstreamChange<Conversation>, in context: ModelContext)
    -> UpstreamAction<Conversation>
  {
    change.kind == .update && change.keys == [.name]
      ? .localOnly : real.action(for: change, in: context)
  }
}

/// Sends the self user's name in capitals and says it sent it as written: the server never
/// ends up holding the local value, and the change never settles.
struct ShoutingSelfUserStrategy: UpstreamStrategy {
  let real = SelfUserStrategy()

  var pushableKeys: Set<User.Key> { [.name] }

  func isSynchronised(_ object: User, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func action(for change: UpstreamChange<User>, in context: ModelContext) throws
    -> UpstreamAction<User>
  {
    guard let user = change.object else { return .localOnly }
    var shouted = user
    shouted.name = user.name.uppercased()
    return .send(
      .updateSelf(SelfUpdate(name: shouted.name)), carrying: [.name], sent: shouted)
  }
}

/// Gives a message a new nonce when it is sent again after a lost answer, so the backend
/// cannot tell it already has it.
struct FreshNonceMessageStrategy: UpstreamStrategy {
  let real = MessageStrategy()

  var pushableKeys: Set<Message.Key> { real.pushableKeys }

  func isSynchronised(_ object: Message, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func order(of object: Message) -> Double { real.order(of: object) }

  func dependencies(of changes: [UpstreamChange<Message>], in context: ModelContext)
    -> [[SyncDependency]]
  {
    real.dependencies(of: changes, in: context)
  }

  func action(for change: UpstreamChange<Message>, in context: ModelContext)
    -> UpstreamAction<Message>
  {
    let resent = context.localChanges(of: Message.self).unconfirmed[change.id] != nil
    guard change.kind == .insert, resent, let message = change.object else {
      return real.action(for: change, in: context)
    }
    return .send(
      .postMessage(
        conversation: message.conversationID,
        NewMessage(nonce: context.makeID(), text: message.text)),
      carrying: change.keys, sent: message)
  }

  func didSucceed(
    _ sent: SentChange<Message>, response: EndpointResponse, in context: ModelContext
  ) {
    real.didSucceed(sent, response: response, in: context)
  }
}

/// Sends each message as soon as its conversation exists, without waiting for the messages
/// written before it.
struct UnorderedMessageStrategy: UpstreamStrategy {
  let real = MessageStrategy()

  var pushableKeys: Set<Message.Key> { real.pushableKeys }

  func isSynchronised(_ object: Message, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func dependencies(of change: UpstreamChange<Message>, in context: ModelContext)
    -> [SyncDependency]
  {
    guard let message = change.object else { return [] }
    return [.exists(ObjectReference(.conversation, message.conversationID))]
  }

  func action(for change: UpstreamChange<Message>, in context: ModelContext)
    -> UpstreamAction<Message>
  {
    real.action(for: change, in: context)
  }

  func didSucceed(
    _ sent: SentChange<Message>, response: EndpointResponse, in context: ModelContext
  ) {
    real.didSucceed(sent, response: response, in: context)
  }
}

/// Drops a group from this device once the backend answers its rename, though the backend and
/// the self user's membership keep it.
struct VanishingGroupStrategy: UpstreamStrategy {
  let real = ConversationStrategy()

  var pushableKeys: Set<Conversation.Key> { real.pushableKeys }

  func isSynchronised(_ object: Conversation, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func dependencies(of change: UpstreamChange<Conversation>, in context: ModelContext)
    -> [SyncDependency]
  {
    real.dependencies(of: change, in: context)
  }

  func action(for change: UpstreamChange<Conversation>, in context: ModelContext)
    -> UpstreamAction<Conversation>
  {
    real.action(for: change, in: context)
  }

  func acknowledgement(
    of sent: SentChange<Conversation>, response: EndpointResponse, in context: ModelContext
  ) -> Acknowledgement<Conversation>? {
    real.acknowledgement(of: sent, response: response, in: context)
  }

  func didSucceed(
    _ sent: SentChange<Conversation>, response: EndpointResponse, in context: ModelContext
  ) {
    real.didSucceed(sent, response: response, in: context)
    if case .renameConversation = sent.endpoint {
      context.discardLocally(Conversation.self, id: sent.id)
    }
  }
}
