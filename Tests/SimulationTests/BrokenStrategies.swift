import CourierAPI
import Foundation
import Models
import SyncStrategies
import UserParsing

// Strategies broken on purpose, each in one way, to prove that the simulator's checks catch
// what they are meant to catch. None of them is fit for anything else.

/// A strategy that does what `real` does wherever the type adopting it does not say otherwise,
/// so that a broken strategy differs from the real one only in the way it is meant to.
protocol ForwardingStrategy: UpstreamStrategy {
  /// The strategy whose decisions are taken unless overridden.
  associatedtype Real: UpstreamStrategy where Real.Object == Object
  /// The real strategy.
  var real: Real { get }
}

extension ForwardingStrategy {
  var pushableKeys: Set<Object.Key> { real.pushableKeys }

  func isSynchronised(_ object: Object, in context: ModelContext) -> Bool {
    real.isSynchronised(object, in: context)
  }

  func order(of object: Object) -> Double { real.order(of: object) }

  func dependencies(of change: UpstreamChange<Object>, in context: ModelContext)
    -> [SyncDependency]
  {
    real.dependencies(of: change, in: context)
  }

  func dependencies(of changes: [UpstreamChange<Object>], in context: ModelContext)
    -> [[SyncDependency]]
  {
    real.dependencies(of: changes, in: context)
  }

  func action(for change: UpstreamChange<Object>, in context: ModelContext) throws
    -> UpstreamAction<Object>
  {
    try real.action(for: change, in: context)
  }

  func acknowledgement(
    of sent: SentChange<Object>, response: EndpointResponse, in context: ModelContext
  ) -> Acknowledgement<Object>? {
    real.acknowledgement(of: sent, response: response, in: context)
  }

  func didSucceed(_ sent: SentChange<Object>, response: EndpointResponse, in context: ModelContext)
  {
    real.didSucceed(sent, response: response, in: context)
  }

  func didFailPermanently(
    _ sent: SentChange<Object>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    real.didFailPermanently(sent, failure: failure, in: context)
  }

  func willRetry(_ id: UUID, in context: ModelContext) { real.willRetry(id, in: context) }
}

/// Forgets the self user's name: the change is marked synchronised and never sent.
struct ForgetfulSelfUserStrategy: ForwardingStrategy {
  let real = SelfUserStrategy()

  func action(for change: UpstreamChange<User>, in context: ModelContext)
    -> UpstreamAction<User>
  {
    change.keys.contains(.name) ? .localOnly : real.action(for: change, in: context)
  }
}

/// Never sends a group's new name and says it is settled: the group keeps it here until the
/// client next reads the group from the backend, which puts the old name back.
struct ForgetfulGroupStrategy: ForwardingStrategy {
  let real = ConversationStrategy()

  func action(for change: UpstreamChange<Conversation>, in context: ModelContext)
    -> UpstreamAction<Conversation>
  {
    change.kind == .update && change.keys == [.name]
      ? .localOnly : real.action(for: change, in: context)
  }
}

/// Sends the self user's name in capitals and says it sent it as written: the server never
/// ends up holding the local value, and the change never settles.
struct ShoutingSelfUserStrategy: ForwardingStrategy {
  let real = SelfUserStrategy()

  var pushableKeys: Set<User.Key> { [.name] }

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
struct FreshNonceMessageStrategy: ForwardingStrategy {
  let real = MessageStrategy()

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
}

/// Sends each message as soon as its conversation exists, without waiting for the messages
/// written before it.
struct UnorderedMessageStrategy: ForwardingStrategy {
  let real = MessageStrategy()

  func dependencies(of changes: [UpstreamChange<Message>], in context: ModelContext)
    -> [[SyncDependency]]
  {
    changes.map { change in
      guard let message = change.object else { return [] }
      return [.exists(ObjectReference(.conversation, message.conversationID))]
    }
  }
}

/// Drops a group from this device once the backend answers its rename, though the backend and
/// the self user's membership keep it.
struct VanishingGroupStrategy: ForwardingStrategy {
  let real = ConversationStrategy()

  func didSucceed(
    _ sent: SentChange<Conversation>, response: EndpointResponse, in context: ModelContext
  ) {
    real.didSucceed(sent, response: response, in: context)
    if case .renameConversation = sent.endpoint {
      context.discardLocally(Conversation.self, id: sent.id)
    }
  }
}
