import ConnectionParsing
import ConversationParsing
import CourierAPI
import FakeBackend
import Foundation
import Models
import ParsingCore
import Seams
import SyncStrategies
import Transport
import UserParsing

extension UpstreamModel {
  /// Checks the rules that hold after every step; the in-flight rule only after `step` handed
  /// out a request, since nothing else adds one; and what the step itself found broken.
  ///
  /// The server is read once, in one snapshot, for all the rules.
  func checkStep(_ index: Int, after step: ModelStep) throws {
    if case .handOut = step { try checkInFlight(index) }
    if let problem = olderValueShown() { throw ModelViolation(step: index, rule: problem) }
    if let brokenRule { throw ModelViolation(step: index, rule: brokenRule) }
    let server = fake.snapshot
    let client = ClientView(stack.sync)
    try learnServerMessages(index, from: server)
    if let problem = unacknowledged(client, on: server).first {
      throw ModelViolation(step: index, rule: problem)
    }
    if let problem = lostEdit(client, on: server) {
      throw ModelViolation(step: index, rule: problem)
    }
  }

  /// Says which context shows a name that the backend set before a name the context showed
  /// already, if one does.
  ///
  /// The self user's name and every group's are followed, in the UI context and the sync
  /// context. Every step that renames writes a new name, so a name's version is the version of
  /// the notification that set it; a name the backend never set (a rename not sent yet) says
  /// nothing about the order and is passed over. So is an older name the client is sending
  /// again: giving up a refused change puts the last acknowledged value back as a new change,
  /// whose version the backend has not given yet; each such pass is counted
  /// (``shownWhileSentAgain``).
  func olderValueShown() -> String? {
    names.read(fake.notifications, of: me)
    for (label, context) in [("UI", stack.ui), ("sync", stack.sync)] {
      if let name = context.object(User.self, id: me)?.name,
        let problem = olderName(name, of: me, in: label)
      {
        return problem
      }
      for group in groups {
        if let name = context.object(Conversation.self, id: group)?.name,
          let problem = olderName(name, of: group, in: label)
        {
          return problem
        }
      }
    }
    return nil
  }

  /// Says how `name`, shown for `id` by the context `label`, is older than a name it showed
  /// already, unless the client is sending it again.
  private func olderName(_ name: String, of id: UUID, in label: String) -> String? {
    guard let problem = names.show(name, of: id, in: label) else { return nil }
    let isSelf = id == me
    let sentAgain =
      isSelf
      ? stack.sync.localChanges(of: User.self).keys(of: id).contains(.name)
      : stack.sync.localChanges(of: Conversation.self).keys(of: id).contains(.name)
    if sentAgain {
      shownWhileSentAgain += 1
      return nil
    }
    return "\(isSelf ? "the self user" : "group \(id)"): \(problem)"
  }

  /// The sync context's objects and local changes, each entity read once for all the rules of
  /// a check.
  struct ClientView {
    let users: [UUID: User]
    let connections: [UUID: Connection]
    let conversations: [UUID: Conversation]
    let messages: [UUID: Message]
    let userChanges: LocalChanges<User>
    let connectionChanges: LocalChanges<Connection>
    let conversationChanges: LocalChanges<Conversation>
    let messageChanges: LocalChanges<Message>

    init(_ context: ModelContext) {
      users = context.objectsByID(User.self)
      connections = context.objectsByID(Connection.self)
      conversations = context.objectsByID(Conversation.self)
      messages = context.objectsByID(Message.self)
      userChanges = context.localChanges(of: User.self)
      connectionChanges = context.localChanges(of: Connection.self)
      conversationChanges = context.localChanges(of: Conversation.self)
      messageChanges = context.localChanges(of: Message.self)
    }
  }

  /// The last value the user saved for a key that is neither here nor was ever seen on the
  /// server, though the app did not give it up: an edit lost without a word.
  ///
  /// A value seen on the server is forgotten, since news may change it from then on.
  ///
  /// `unacknowledged()` cannot see this when the value here went back to the server's and the
  /// key stopped being pending, as a wrong revert or discard would leave it.
  func lostEdit() -> String? { lostEdit(ClientView(stack.sync), on: fake.snapshot) }

  /// ``lostEdit()`` of what `client` holds against what `server` holds.
  func lostEdit(_ client: ClientView, on server: ServerSnapshot) -> String? {
    var lost: [String] = []
    // Read once for every key, and captured alone: a closure over the whole view copies it.
    let selfUser = client.users[me]
    let conversations = client.conversations
    let connections = client.connections
    for (key, saved) in lastSaved {
      if serverValue(of: key, on: server) == saved {
        lastSaved[key] = nil
        continue
      }
      let here = key.value(
        selfUser: selfUser, conversation: { conversations[$0] }, connection: { connections[$0] })
      guard let here, here != saved else { continue }
      lost.append("the user's last \(key), \(saved), is neither here (\(here)) nor on the server")
    }
    // The same report whatever order the dictionary keeps, so that a seed replays alike.
    return lost.min()
  }

  private func serverValue(of key: SavedKey, on server: ServerSnapshot) -> SavedValue? {
    switch key {
    case .selfName: return server.user(me).map { .name($0.name) }
    case .accent: return server.user(me).map { .accent($0.accentID) }
    case .groupName(let id):
      return server.conversation(id).map { .name($0.name ?? "") }
    case .connection(let user):
      return server.connection(from: me, to: user).map {
        .connection(Connection.Status(backendValue: $0.status.rawValue))
      }
    case .member(let user, let group):
      return server.conversation(group).map { .member($0.memberIDs.contains(user)) }
    }
  }

  /// Never two requests in flight that carry the same key of one object; an insert or a
  /// deletion holds the whole object.
  func checkInFlight(_ step: Int) throws {
    var seen: [ObjectReference: [SyncQueueSnapshot.Item]] = [:]
    for request in inFlight { seen[request.item.object, default: []].append(request.item) }
    for (object, items) in seen where items.count > 1 {
      if items.contains(where: { $0.kind != .update }) {
        throw ModelViolation(
          step: step,
          rule: "\(object) has \(items.count) requests in flight, one of them not an update")
      }
      let keys = items.flatMap(\.keys.names)
      if Set(keys).count != keys.count {
        throw ModelViolation(
          step: step, rule: "\(object) has one key in two requests at once: \(keys)")
      }
    }
  }

  /// Reads the messages the server accepted since the last check, and fails if one of them is
  /// a message it already holds, or a message of the self user this device never wrote (a copy
  /// sent under another nonce): no message is on the server twice.
  ///
  /// Each conversation's list on the server only grows, unless the app gave up a message that
  /// an earlier attempt may have posted, which is then deleted there: a list that no longer
  /// holds the last message read where it was is read again from the start.
  func learnServerMessages(_ step: Int) throws {
    try learnServerMessages(step, from: fake.snapshot)
  }

  /// ``learnServerMessages(_:)`` from what `server` holds.
  func learnServerMessages(_ step: Int, from server: ServerSnapshot) throws {
    for conversation in conversations {
      let messages = server.messages(in: conversation)
      var known = serverMessages[conversation] ?? ServerMessages()
      // Read again from the start: every message written there may be unseen now.
      var wasRead = false
      if known.count > messages.count
        || (known.count > 0 && messages[known.count - 1].nonce != known.last)
      {
        known = ServerMessages()
        wasRead = true
      }
      guard messages.count > known.count || wasRead else { continue }
      for message in messages[known.count...] {
        guard known.nonces.insert(message.nonce).inserted else {
          throw ModelViolation(
            step: step, rule: "message \(message.nonce) is on the server twice in \(conversation)")
        }
        if message.from == me && written[conversation]?.contains(message.nonce) != true {
          throw ModelViolation(
            step: step,
            rule:
              "message \(message.nonce) (\(message.text)) of the self user is on the server in \(conversation) but was never written here"
          )
        }
      }
      known.count = messages.count
      known.last = messages.last?.nonce
      serverMessages[conversation] = known
      if let unseen = unseenWritten[conversation] {
        unseenWritten[conversation] = (wasRead ? written[conversation] ?? [] : unseen).filter {
          !known.nonces.contains($0)
        }
      }
    }
  }

  /// Every key the backend keeps either holds, on the backend, the value the sync context has,
  /// or is still pending in the change log: checked for the self user, every group and every
  /// message the model wrote that the server does not hold.
  func unacknowledged() -> [String] { unacknowledged(ClientView(stack.sync), on: fake.snapshot) }

  /// ``unacknowledged()`` of what `client` holds against what `server` holds.
  func unacknowledged(_ client: ClientView, on server: ServerSnapshot) -> [String] {
    var problems: [String] = []
    func name(_ id: UUID) -> String { client.users[id]?.name ?? "\(id)" }
    let userChanges = client.userChanges
    if let mine = client.users[me], let theirs = server.user(me) {
      let pending = userChanges.keys(of: me).union(
        userChanges.failure(of: me) != nil ? [.name, .accentID] : [])
      if theirs.name != mine.name && !pending.contains(.name) {
        problems.append(
          "self name is \(mine.name) here, \(theirs.name) on the server, and not pending")
      }
      if theirs.accentID != mine.accentID && !pending.contains(.accentID) {
        problems.append(
          "accent is \(mine.accentID) here, \(theirs.accentID) on the server, and not pending")
      }
    }
    let connections = client.connectionChanges
    for user in users {
      guard let mine = client.connections[user],
        let theirs = server.connection(from: me, to: user), connections.failure(of: user) == nil
      else { continue }
      if theirs.status.rawValue != mine.status.rawValue
        && !connections.keys(of: user).contains(.status)
      {
        problems.append(
          "the connection with \(user) (\(name(user))) is \(mine.status.rawValue) here, \(theirs.status.rawValue) on the server, and not pending"
        )
      }
    }
    let changes = client.conversationChanges
    for id in groups {
      guard let conversation = client.conversations[id] else {
        // Only a group the app gave up goes; one the backend may hold is left there.
        if !changes.deleted.contains(id), server.members(of: id).contains(me) {
          problems.append(
            "group \(id) is gone here, the server has the self user in it, and no leaving is pending"
          )
        }
        continue
      }
      // A request out while the group was dropped and the self user added back may be applied
      // after the re-add (a resent leave removes them again, a rename lands on the group as
      // news brought it back); the client learns which came last from news not read yet.
      guard !changes.inserted.contains(id), changes.failure(of: id) == nil,
        !awaitingNews.contains(id)
      else { continue }
      guard let theirs = server.conversation(id) else {
        problems.append("group \(id) exists here but not on the server, and is not pending")
        continue
      }
      let keys = changes.keys(of: id)
      if theirs.name != conversation.name && !keys.contains(.name) {
        problems.append(
          "group \(id) is named \(conversation.name ?? "nil") here, \(theirs.name ?? "nil") on the server, and not pending"
        )
      }
      if !theirs.hasMembers(conversation.participantIDs) && !keys.contains(.participantIDs) {
        let here = conversation.participantIDs.map(name).sorted()
        let there = theirs.members.map(name).sorted()
        problems.append(
          "group \(id) has members \(here) here, \(there) on the server, and not pending")
      }
    }
    let messages = client.messageChanges
    // Only the messages not seen on the server yet: those it holds need nothing pending.
    for nonces in unseenWritten.values {
      for nonce in nonces {
        guard !messages.inserted.contains(nonce), messages.failure(of: nonce) == nil else {
          continue
        }
        guard let message = client.messages[nonce] else {
          if !givenUp.contains(nonce) {
            problems.append("message \(nonce) is gone here, not on the server, and not given up")
          }
          continue
        }
        problems.append("message \(message.text) (\(nonce)) is sent here but not on the server")
      }
    }
    return problems + failedThoughDeleted(changes) + failedThoughDeleted(messages)
  }

  /// Refusals the app is shown though nothing is left to decide: on an object gone here, or a
  /// message deletion the strategy would no longer send since its conversation is gone here.
  /// (A refused deletion still worth sending, such as a leave, may wait.)
  ///
  /// The tracker drops a moot refusal when it next looks at the log, so a suspect in the log
  /// counts only if the queue, which an app reads, still lists it.
  func failedThoughDeleted<Object: ModelObject>(_ changes: LocalChanges<Object>) -> [String] {
    guard !changes.failures.isEmpty else { return [] }
    let context = stack.sync
    let suspects = changes.failures.keys.filter { id in
      changes.deleted.contains(id) || context.object(Object.self, id: id) == nil
    }
    guard !suspects.isEmpty else { return [] }
    let shown = Set(upstream.queue(in: context, now: now).failed.map(\.object.id))
    return suspects.filter(shown.contains).sorted().compactMap { id in
      if !changes.deleted.contains(id) {
        guard context.object(Object.self, id: id) == nil else { return nil }
        return "the refusal of \(Object.entityName) \(id) waits as a failure though it is gone here"
      }
      guard let message = changes.originals[id] as? Message,
        context.object(Conversation.self, id: message.conversationID) == nil
      else { return nil }
      return
        "the refused deletion of message \(id) waits as a failure though its group is gone here"
    }
  }

  /// The objects that still have values the backend may hold: after draining, every request was
  /// answered, so each record written ahead or left by a lost answer was settled or withdrawn.
  func uncertainAfterDraining() -> [String] {
    let context = stack.sync
    func uncertain<Object: ModelObject>(_ type: Object.Type, _ ids: some Sequence<UUID>)
      -> [String]
    {
      let changes = context.localChanges(of: type)
      return ids.compactMap { id in
        changes.unconfirmed[id].map {
          "\(Object.entityName) \(id) still has \($0.count) values the backend may hold"
        }
      }
    }
    return uncertain(User.self, [me]) + uncertain(Connection.self, users)
      + uncertain(Conversation.self, groups) + uncertain(Message.self, written.values.joined())
  }

  /// After draining: nothing pending, the UI and the server agree, and each conversation's
  /// messages are on the server in the order they were written.
  func checkDrained(_ step: Int) throws {
    let queue = upstream.queue(in: stack.sync, now: .seconds(1_000_000))
    guard queue.isEmpty else {
      throw ModelViolation(step: step, rule: "after draining, the queue is \(queue)")
    }
    try learnServerMessages(step)
    if let problem = unacknowledged().first ?? uncertainAfterDraining().first {
      throw ModelViolation(step: step, rule: "after draining: \(problem)")
    }
    if let mine = ui.object(User.self, id: me), let server = fake.user(me),
      mine.name != server.name || mine.accentID != server.accentID
    {
      throw ModelViolation(
        step: step, rule: "after draining, the UI's self user differs from the server's")
    }
    for user in users
    where ui.object(Connection.self, id: user)?.status.rawValue
      != fake.connection(from: me, to: user)?.status.rawValue
    {
      throw ModelViolation(
        step: step,
        rule: "after draining, the UI's connection with \(user) differs from the server's")
    }
    for group in groups {
      guard let mine = ui.object(Conversation.self, id: group) else {
        if fake.members(of: group).contains(me) {
          throw ModelViolation(
            step: step,
            rule: "after draining, group \(group) is gone here but has the self user on the server")
        }
        continue
      }
      if mine.name != fake.conversation(group)?.name {
        throw ModelViolation(
          step: step, rule: "after draining, the UI names group \(group) otherwise than the server")
      }
    }
    for (conversation, nonces) in written {
      let expected = nonces.filter { !everRefused.contains($0) && !givenUp.contains($0) }
      let onServer = fake.messages(in: conversation).map(\.nonce).filter { expected.contains($0) }
      if onServer != expected {
        throw ModelViolation(
          step: step,
          rule: "messages of \(conversation) are on the server out of the order they were written")
      }
    }
  }
}
