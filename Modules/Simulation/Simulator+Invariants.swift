import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine
import SyncStrategies
import UserParsing

extension Simulator {
  /// The rules that hold after every step.
  func checkStep(_ step: Int) async -> InvariantViolation? {
    for id in log.takeDroppedMessages() {
      if let text = textsByID[id] { droppedTexts.insert(text) }
    }
    droppedDeletions.formUnion(log.takeDroppedDeletions())
    // A change the app was told it dropped is no longer the user's to follow.
    for object in log.takeDroppedChanges() { lastEdits.forget(keysOf: object) }
    let queue = await app.engine.queue()
    if let problem = Self.keyInFlightTwice(queue) {
      return InvariantViolation(invariant: .keyInFlightTwice, step: step, detail: problem)
    }
    if let problem = await olderValueShown() {
      return InvariantViolation(invariant: .olderValueShown, step: step, detail: problem)
    }
    if let problem = await cursorMovedBack() {
      return InvariantViolation(invariant: .cursorMovedBack, step: step, detail: problem)
    }
    let view = await app.stack.sync.perform { ClientView($0) }
    memberBases = view.memberBases
    // Caught up for good only once the store holds it: a save it refused is kept in memory for
    // the next, and a kill before that loses it.
    if !app.holdsUnsavedState,
      await app.engine.lastNotificationID == fake.notifications.last?.id
    {
      remotelyTouched = []
      awaitingNews = awaitingNews.filter { hasRequestOut(for: $0, queue, view) }
    }
    if let problem = savedValueLost(view) {
      return InvariantViolation(invariant: .savedValueLost, step: step, detail: problem)
    }
    if let problem = lastEditLost(view) {
      return InvariantViolation(invariant: .lastEditLost, step: step, detail: problem)
    }
    if let problem = createdTwice(view) {
      return InvariantViolation(invariant: .createdTwice, step: step, detail: problem)
    }
    if let problem = messagesOutOfOrder() {
      return InvariantViolation(invariant: .messagesOutOfOrder, step: step, detail: problem)
    }
    return readServerApplications(at: step)
  }

  /// Says how the notification cursor moved back in the self user's stream, if it did: after
  /// any page of news the client applied since the last check, or where it stands now.
  private func cursorMovedBack() async -> String? {
    let stream = fake.notifications
    let now = await app.engine.lastNotificationID
    for id in link.takeCursors() + (now.map { [$0] } ?? []) {
      if let broken = cursor.move(to: id, in: stream) { return broken }
    }
    return nil
  }

  /// Says which context shows a name (a user's, a conversation's) that the server set before
  /// a name it showed already, across restarts, if one does.
  ///
  /// Every rename writes a new name, so a name's version is that of the notification that set
  /// it; a name the server never set is passed over, and so is an older name the client is
  /// sending again (the app gave up a refused change, which puts the last acknowledged value
  /// back as a new change), counted in ``shownWhileSentAgain``.
  private func olderValueShown() async -> String? {
    names.read(fake.notifications, of: me)
    let ui = Self.shownNames(in: app.stack.ui.context)
    let sync = await app.stack.sync.perform { Self.shownNames(in: $0) }
    for (label, shown) in [("UI", ui), ("sync", sync)] {
      for (id, name) in shown.sorted(by: { $0.key < $1.key }) {
        guard let problem = names.show(name, of: id, in: label) else { continue }
        // What the client still has to send is only read for a name that went back.
        if await app.stack.sync.perform({ Self.namesSentAgain(in: $0) }).contains(id) {
          shownWhileSentAgain += 1
          continue
        }
        return "\(id): \(problem)"
      }
    }
    return nil
  }

  /// The names `context` shows, of users and of conversations, by id.
  private nonisolated static func shownNames(in context: ModelContext) -> [UUID: String] {
    var names: [UUID: String] = [:]
    for (id, user) in context.objectsByID(User.self) { names[id] = user.name }
    for (id, conversation) in context.objectsByID(Conversation.self) {
      if let name = conversation.name { names[id] = name }
    }
    return names
  }

  /// The users and conversations whose name the client has still to send.
  private nonisolated static func namesSentAgain(in context: ModelContext) -> Set<UUID> {
    let users = context.localChanges(of: User.self)
    let conversations = context.localChanges(of: Conversation.self)
    return Set(users.updatedKeys.filter { $0.value.contains(.name) }.keys)
      .union(conversations.updatedKeys.filter { $0.value.contains(.name) }.keys)
  }

  /// What is left blocked and failed in `queue`, one item per line, so a failing seed says what
  /// waits for what.
  private nonisolated static func stuckItems(of queue: SyncQueueSnapshot) -> String {
    let blocked = queue.blocked.map {
      "\n  blocked: \($0.item) waits for \($0.waitingFor)" + ($0.isCycle ? " (a cycle)" : "")
    }
    let waiting = queue.waitingOnFailure.map {
      "\n  waiting on a failure: \($0.item) on \($0.failedObject) (\($0.reason))"
    }
    let failed = queue.failed.map { "\n  failed: \($0.object) (\($0.reason))" }
    return (blocked + waiting + failed).joined()
  }

  /// The rules that hold after the drain.
  func checkEnd() async -> InvariantViolation? {
    if let violation = await checkStep(figures.steps) {
      return InvariantViolation(
        invariant: violation.invariant, step: nil, detail: violation.detail)
    }
    let queue = await app.engine.queue()
    let stuck =
      queue.pending.count + queue.inFlight.count + queue.blocked.count
      + queue.retrying.count
    if stuck > 0 || queue.failed.contains(where: { $0.reason.isEmpty }) {
      return InvariantViolation(
        invariant: .queueNotDrained, step: nil,
        detail: "after draining, the queue is \(queue)\(Self.stuckItems(of: queue))")
    }
    let sync = await app.stack.sync.perform { ClientView($0) }
    let fake = self.fake
    let me = self.me
    if let problem = Self.supersededFailure(
      queue.failed.map(\.object), in: sync, selfIsMember: { fake.members(of: $0).contains(me) })
    {
      return InvariantViolation(invariant: .queueNotDrained, step: nil, detail: problem)
    }
    if let problem = await endStateDiffers(queue, sync: sync) {
      return InvariantViolation(invariant: .endStateDiffers, step: nil, detail: problem)
    }
    if let problem = newsMissed(queue, sync: sync) {
      return InvariantViolation(invariant: .endStateDiffers, step: nil, detail: problem)
    }
    if let problem = Self.notQuiescent(app.tracker) {
      return InvariantViolation(invariant: .notQuiescent, step: nil, detail: problem)
    }
    return nil
  }

  /// A change refused for good that still waits for the app though the user deleted its
  /// object since: the deletion supersedes it, and must not wait behind it.
  ///
  /// A save clears an object's failure, so a failure on an object no longer here can only be a
  /// refusal that came after the deletion was saved; and the simulated backend refuses a
  /// deletion only once the user may no longer make it (a message in a group they left), which
  /// leaves the app nothing to decide either, unless another member added the self user back
  /// (`selfIsMember` says whether the backend has them in a conversation) before the client
  /// heard they were out: then the user may make the deletion again, and its refusal is the
  /// app's to decide like any other.
  static func supersededFailure(
    _ failed: [ObjectReference], in sync: ClientView, selfIsMember: (UUID) -> Bool = { _ in false }
  ) -> String? {
    let held = failed.filter { reference in
      guard sync.pendingDeletes.contains(reference) || !sync.holds(reference) else { return false }
      guard reference.entity == .message, sync.pendingDeletes.contains(reference),
        let conversation = sync.deletedMessageConversations[reference.id],
        sync.conversations[conversation] != nil
      else { return true }
      return !selfIsMember(conversation)
    }
    guard let first = held.min() else { return nil }
    return "the refusal of \(first), deleted here since, waits for the app as a failure"
  }

  /// The jobs of the app still running once everything should have settled.
  static func notQuiescent(_ tracker: WorkTracker) -> String? {
    tracker.isIdle ? nil : "still running: \(tracker.outstandingJobs.map(\.description))"
  }

  /// Two requests in flight carrying the same key of one object, or an insert or deletion in
  /// flight beside another request for the object.
  static func keyInFlightTwice(_ queue: SyncQueueSnapshot) -> String? {
    var byObject: [ObjectReference: [SyncQueueSnapshot.Item]] = [:]
    for item in queue.inFlight { byObject[item.object, default: []].append(item) }
    for (object, items) in byObject.sorted(by: { $0.key < $1.key }) where items.count > 1 {
      if items.contains(where: { $0.kind != .update }) {
        return "\(object) has \(items.count) requests in flight, one of them an insert or deletion"
      }
      let keys = items.flatMap(\.keys.names)
      if Set(keys).count != keys.count {
        return "\(object) has a key in two requests at once: \(keys.sorted())"
      }
    }
    return nil
  }

  /// Whether a request of group `id` is in flight here or held by the backend (perhaps sent by
  /// an app instance since killed): one that may still change the group there.
  ///
  /// A request for one of the group's messages counts too: news may drop the group with the
  /// message's change and bring both back while the request is out, and it may land after them
  /// unheard, when the app is killed before its answer (a deletion, say).
  private func hasRequestOut(for id: UUID, _ queue: SyncQueueSnapshot, _ view: ClientView) -> Bool {
    let reference = ObjectReference(.conversation, id)
    return queue.inFlight.contains { item in
      item.object == reference
        || (item.object.entity == .message
          && (view.messages[item.object.id]?.conversationID
            ?? view.deletedMessageConversations[item.object.id]) == id)
    }
      || fake.parkedRequests.contains { index in
        guard case .success(let endpoint)? = fake.parkedRequest(index)?.endpoint else {
          return false
        }
        return Self.changedGroup(of: endpoint) == id
      }
  }

  /// The group whose name or members `endpoint` changes, if it changes one.
  private static func changedGroup(of endpoint: Endpoint) -> UUID? {
    switch endpoint {
    case .renameConversation(let id, _), .addMembers(let id, _), .removeMembers(let id, _): id
    default: nil
    }
  }

  /// The user's last edit of a key, neither in the sync context nor on the server, though nothing
  /// else changed the key since; groups whose requests may have crossed the self user's removal
  /// or return wait for the news (``awaitingNews``).
  private func lastEditLost(_ view: ClientView) -> String? {
    let fake = self.fake
    let me = self.me
    let awaitingNews = self.awaitingNews
    return lastEdits.lost(
      here: { key in
        switch key {
        case .selfName: view.me?.name
        case .accent: view.me.map { "\($0.accentID)" }
        case .groupName(let group): view.groups[group].map { $0.name ?? "" }
        case .member(let user, let group):
          view.groups[group].map { $0.participantIDs.contains(user) ? "in" : "out" }
        case .connection(let contact): view.connections[contact].map { "\($0.status)" }
        }
      },
      there: { key in
        switch key {
        case .selfName: fake.user(me)?.name
        case .accent: fake.user(me).map { "\($0.accentID)" }
        case .groupName(let group): fake.conversation(group).map { $0.name ?? "" }
        case .member(let user, let group):
          fake.conversation(group).map { _ in
            fake.members(of: group).contains(user) ? "in" : "out"
          }
        case .connection(let contact):
          fake.connection(from: me, to: contact).map {
            "\(Connection.Status(backendValue: $0.status.rawValue))"
          }
        }
      },
      skipping: { key in
        if case .groupName(let group) = key { return awaitingNews.contains(group) }
        if case .member(_, let group) = key { return awaitingNews.contains(group) }
        return false
      })
  }

  /// A value the client holds that is neither on the backend nor pending.
  ///
  /// Objects other users changed since the app last caught up are left for later, and so are
  /// groups whose requests may have crossed the self user's removal or return
  /// (``awaitingNews``). Objects the news not read yet tell of, after a pull stopped between
  /// pages, are checked too: the sync layer keeps the answers to the user's changes of names,
  /// the accent, members, connections and messages until their news come, so news read first,
  /// which may tell of an older value the user set, leave those answers standing.
  private func savedValueLost(_ view: ClientView) -> String? {
    if let mine = view.me, let theirs = fake.user(me),
      !remotelyTouched.contains(ObjectReference(.user, me))
    {
      let reference = ObjectReference(.user, me)
      if mine.name != theirs.name && !view.isPending(reference, "name") {
        return "self name is \(mine.name) here, \(theirs.name) on the server, and not pending"
      }
      if mine.accentID != theirs.accentID && !view.isPending(reference, "accentID") {
        return "accent is \(mine.accentID) here, \(theirs.accentID) on the server, and not pending"
      }
    }
    for group in view.groups.values.sorted(by: { $0.id < $1.id }) {
      let reference = ObjectReference(.conversation, group.id)
      guard !remotelyTouched.contains(reference), !awaitingNews.contains(group.id),
        !view.pendingInserts.contains(reference), !view.failed.contains(reference)
      else { continue }
      guard let theirs = fake.conversation(group.id) else {
        return "group \(group.name ?? "") exists here but not on the server, and is not pending"
      }
      if theirs.name != group.name && !view.isPending(reference, "name") {
        return
          "group \(group.id) is named \(group.name ?? "nil") here, \(theirs.name ?? "nil") on the server"
      }
      if Set(fake.members(of: group.id)) != group.participantIDs
        && !view.isPending(reference, "participantIDs")
      {
        return
          "group \(group.id) has \(group.participantIDs.count) members here, \(fake.members(of: group.id).count) on the server"
      }
    }
    for connection in view.connections.values.sorted(by: { $0.id < $1.id }) {
      let reference = ObjectReference(.connection, connection.id)
      guard !remotelyTouched.contains(reference), !view.pendingInserts.contains(reference),
        !view.failed.contains(reference), let theirs = fake.connection(from: me, to: connection.id)
      else { continue }
      if Connection.Status(backendValue: theirs.status.rawValue) != connection.status
        && !view.isPending(reference, "status")
      {
        return
          "connection to \(connection.id) is \(connection.status) here, \(theirs.status) on the server"
      }
    }
    for message in view.messages.values.sorted(by: { $0.id < $1.id }) where message.senderID == me {
      let reference = ObjectReference(.message, message.id)
      // A message of a group the self user was removed from (or added back to) since the app
      // last caught up waits for the news, as the group does: a refused deletion given up shows
      // it as last known, though an earlier attempt may have deleted it.
      // A deletion the app was told it dropped may still have reached the backend, its request
      // being out; so may an earlier attempt of a refused deletion the app gave up (its answer
      // lost, or the app killed while it was out). The news that would say so may be forgotten
      // before the app read them (news it read settle the deletion), and the API has no
      // message history to tell it otherwise.
      guard !view.pendingInserts.contains(reference), !view.pendingDeletes.contains(reference),
        !view.failed.contains(reference), !awaitingNews.contains(message.conversationID),
        fake.conversation(message.conversationID) != nil,
        !(droppedDeletions.union(givenUpDeletions).contains(message.id)
          && forgottenDeletions.contains(message.id)),
        // Deleted on another device: gone here once the news are read.
        !deletedBySenders.contains(message.id)
      else { continue }
      if !fake.messages(in: message.conversationID).contains(where: { $0.nonce == message.nonce }) {
        return "message \(message.text) is sent here but not on the server"
      }
    }
    return nil
  }

  /// A message written once that is on the server twice, or a group the self user made that
  /// the server holds under another id too.
  private func createdTwice(_ view: ClientView) -> String? {
    let ours = Set(written.values.flatMap { $0 })
    for conversation in view.conversations.keys.sorted() {
      let texts = fake.messages(in: conversation).map(\.text).filter(ours.contains)
      if let twice = Dictionary(grouping: texts, by: { $0 }).first(where: { $0.value.count > 1 }) {
        return "message \(twice.key) is on the server \(twice.value.count) times"
      }
    }
    let known = createdGroups.union([initialGroup])
    for id in fake.snapshot.conversations.keys.sorted() where !known.contains(id) {
      guard let conversation = fake.conversation(id), conversation.type == .group,
        conversation.creator == me
      else { continue }
      return
        "the server holds a group \(conversation.name ?? "") made by the self user under an id it never chose"
    }
    return nil
  }

  /// A conversation whose messages from the self user are on the server out of the order they
  /// were written; a message refused for good and sent again later does not count, nor one the
  /// app dropped with its group while its request was out, since the messages after it went
  /// without waiting for it.
  private func messagesOutOfOrder() -> String? {
    for (conversation, written) in written.sorted(by: { $0.key < $1.key }) {
      let texts = written.filter { !retriedTexts.contains($0) && !droppedTexts.contains($0) }
      let onServer = fake.messages(in: conversation).map(\.text).filter(Set(texts).contains)
      let expected = texts.filter(Set(onServer).contains)
      if onServer != expected {
        return "in \(conversation): written \(expected), on the server \(onServer)"
      }
    }
    return nil
  }

  /// Where the UI, the sync context, the store and the server disagree, after the drain,
  /// groups the server has and this device lost included; objects whose changes were refused
  /// for good are left out.
  ///
  /// `sync` is what the sync context holds now.
  private func endStateDiffers(_ queue: SyncQueueSnapshot, sync: ClientView) async -> String? {
    let ui = ClientView(self.ui)
    let stored: ClientView
    do {
      stored = ClientView(try store.load().tables)
    } catch {
      return "the store cannot be read: \(error)"
    }
    if ui.objectsOnly != sync.objectsOnly {
      return
        "the UI and the sync context hold different objects (UI here, sync there): \(ui.differences(from: sync))"
    }
    if stored.objectsOnly != sync.objectsOnly {
      return
        "the store and the sync context hold different objects (store here, sync there): \(stored.differences(from: sync))"
    }
    let refused = Self.refusedObjects(in: queue)
    if let mine = sync.me, let theirs = fake.user(me),
      !refused.contains(ObjectReference(.user, me)),
      mine.name != theirs.name || mine.accentID != theirs.accentID
    {
      return
        "the self user is \(mine.name)/\(mine.accentID) here, \(theirs.name)/\(theirs.accentID) on the server"
    }
    let server = fake.snapshot.conversations
    for id in server.keys.sorted()
    where server[id]?.members.contains(me) == true && fake.conversation(id)?.type == .group
      && sync.groups[id] == nil && !refused.contains(ObjectReference(.conversation, id))
    {
      return "group \(id) is on the server with the self user in it, but not here"
    }
    for group in sync.groups.values.sorted(by: { $0.id < $1.id })
    where !refused.contains(ObjectReference(.conversation, group.id)) {
      guard let theirs = fake.conversation(group.id) else {
        return "group \(group.name ?? "") is here but not on the server"
      }
      if theirs.name != group.name || Set(fake.members(of: group.id)) != group.participantIDs {
        return
          "group \(group.id) differs: \(group.name ?? "nil") here, \(theirs.name ?? "nil") on the server"
      }
    }
    return nil
  }

  /// The objects whose changes the backend refused for good, and those waiting on them: the
  /// end-state checks leave them to the app's decision.
  private static func refusedObjects(in queue: SyncQueueSnapshot) -> Set<ObjectReference> {
    Set(queue.failed.map(\.object)).union(queue.waitingOnFailure.map(\.item.object))
  }

  /// What the backend holds for the self user that the client never got, after the drain.
  ///
  /// Gathers the backend's side for ``newsMissed(connections:names:messages:view:)``: the self
  /// user's connections, the names of the contacts connected with them (whose renames the news
  /// carry), and the messages of every conversation the self user is in, less
  /// those the client cannot have: a group's history from before the self user was added back
  /// (the news bring the group, not its messages), the self user's messages dropped with a
  /// group while their requests were out, which may land after the re-add, and messages whose
  /// news the backend forgot.
  private func newsMissed(_ queue: SyncQueueSnapshot, sync: ClientView) -> String? {
    let refused = Self.refusedObjects(in: queue)
    let connections = contacts.compactMap { contact -> (UUID, Connection.Status)? in
      guard !refused.contains(ObjectReference(.connection, contact)),
        let connection = fake.connection(from: me, to: contact)
      else { return nil }
      return (contact, Connection.Status(backendValue: connection.status.rawValue))
    }
    var names: [UUID: String] = [:]
    for (contact, status) in connections where status == .accepted {
      names[contact] = fake.user(contact)?.name
    }
    var messages: [UUID: [UUID]] = [:]
    let snapshot = fake.snapshot
    for (id, conversation) in snapshot.conversations where conversation.members.contains(me) {
      let history = postedBeforeRejoin[id] ?? []
      messages[id] = snapshot.messages(in: id).map(\.nonce).filter { nonce in
        let dropped = textsByID[nonce].map(droppedTexts.contains) ?? false
        return !history.contains(nonce) && !dropped && !forgottenMessages.contains(nonce)
      }
    }
    return Self.newsMissed(
      connections: connections, names: names, messages: messages,
      deleted: deletedBySenders.subtracting(forgottenDeletions), view: sync)
  }

  /// A connection the backend holds that the client lacks or holds with another status, a
  /// contact the client shows under another name than the backend's, a message the backend
  /// holds that the client lacks, or one whose deletion the client was told that it still
  /// holds; `nil` when the client has them all, and no more.
  ///
  /// `connections` are the backend's, by contact, with their status; `names` the backend's
  /// names of the contacts the client should show as the backend has them, by id (one the
  /// client does not hold is left out); `messages` the nonces of the messages the client should
  /// hold, by conversation; `deleted` those of messages deleted on the backend whose news the
  /// client can read.
  static func newsMissed(
    connections: [(contact: UUID, status: Connection.Status)], names: [UUID: String] = [:],
    messages: [UUID: [UUID]], deleted: Set<UUID> = [], view: ClientView
  ) -> String? {
    for (contact, status) in connections.sorted(by: { $0.contact < $1.contact }) {
      guard let mine = view.connections[contact] else {
        return "the connection with \(contact) is \(status.rawValue) on the server but not here"
      }
      if mine.status != status {
        return
          "the connection with \(contact) is \(mine.status.rawValue) here, \(status.rawValue) on the server"
      }
    }
    for (contact, name) in names.sorted(by: { $0.key < $1.key }) {
      if let mine = view.users[contact], mine.name != name {
        return "contact \(contact) is named \(mine.name) here, \(name) on the server"
      }
    }
    for conversation in messages.keys.sorted() {
      for nonce in messages[conversation] ?? [] where view.messages[nonce] == nil {
        return "message \(nonce) of conversation \(conversation) is on the server but not here"
      }
    }
    for nonce in deleted.sorted() where view.messages[nonce] != nil {
      return "message \(nonce) was deleted on the server by its sender but is still here"
    }
    return nil
  }
}
