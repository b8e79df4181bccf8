import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import JSON
import Models
import ParsingCore
import Transport
import UserParsing

/// Why a downstream response could not be applied.
public enum DownstreamError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The backend answered with a status other than success, and the error it gave if readable.
  case status(Route, Int, APIError?)
  /// The answer is not the payload the route answers with.
  case payload(ResponseError)
  /// `since` names a notification the backend no longer has: a full fetch is needed.
  case unknownSince(UUID)
  /// A page did not move past `after`, where it started: it said the backend has more but
  /// stayed there, or it led back to where the reading had already been. Asking on would read
  /// the same again.
  case pageDidNotAdvance(Route, after: UUID?)
  /// Elements of a page could not be read; the rest of the page was applied, and reading went
  /// on after them.
  case unreadableElements(Route, [UnreadableElement])

  /// Names the problem.
  public var description: String {
    switch self {
    case .status(let route, let status, let error):
      "\(route) answered \(status)" + (error.map { " (\($0.label))" } ?? "")
    case .payload(let error): "\(error)"
    case .unknownSince(let id):
      "the backend does not know notification \(id.lowercasedText)"
    case .pageDidNotAdvance(let route, let start):
      "\(route) answered a page that did not move past "
        + (start.map { "element \($0.lowercasedText)" } ?? "the start")
    case .unreadableElements(let route, let elements):
      "\(route) answered \(elements.count) unreadable "
        + (elements.count == 1 ? "element" : "elements") + ": "
        + elements.map(\.description).joined(separator: "; ")
    }
  }
}

/// What applying a page of notifications did.
public struct NotificationApplication: Sendable, Equatable {
  /// How many notifications the page held.
  public let count: Int
  /// The id of the last notification applied; the next fetch asks for those after it.
  public let lastID: UUID?
  /// Whether the backend has more after this page.
  public let hasMore: Bool
  /// Users that events referred to and the context does not know; fetch them.
  public let unknownUsers: Set<UUID>
  /// Users the context knew whose profile a `user.update` event changed: a fetch of them sent
  /// before the page was read tells of an older profile, or the same.
  public internal(set) var updatedUsers: Set<UUID> = []
  /// Users whose connection with the self user an event of the page showed accepted: the
  /// backend tells a user's profile changes only to their connections, so what they changed
  /// while the request waited never came as news, and a fetch sent before the page was read
  /// may not tell it either; fetch them.
  public internal(set) var acceptedContacts: Set<UUID> = []
  /// Events of types this client does not know, or about conversations it does not know, skipped.
  public let skippedEvents: Int
  /// Notifications of the page that could not be read, passed over: the next page starts
  /// after them.
  public let unreadable: [UnreadableElement]
  /// Local changes dropped because the backend removed the self user from their conversation,
  /// in the order they were found: each conversation's own change first, then its messages'.
  public internal(set) var droppedChanges: [DroppedChange] = []
}

/// Fetches what changed on the backend and applies it to the sync context, through the same
/// merge rules as everything else: a key with an unpushed local change keeps the local value.
///
/// Stateless: the engine keeps the id of the last notification seen.
public struct DownstreamSync: Sendable {
  /// How many notifications to ask for at once.
  public let pageSize: Int

  /// Creates a downstream sync fetching `pageSize` notifications at a time (1…500).
  public init(pageSize: Int = 100) {
    self.pageSize = min(max(pageSize, Paging.sizes.lowerBound), Paging.sizes.upperBound)
  }

  /// `GET /self`.
  public var selfUser: Endpoint { .getSelf }

  /// `GET /notifications?since=…&size=…`, from the beginning when `since` is `nil`.
  public func notifications(since: UUID?) -> Endpoint {
    .getNotifications(since: since, size: pageSize)
  }

  /// The `GET /users?ids=…` calls that fetch `ids`, each naming at most `Endpoint.maxUserIDs`
  /// of them, in a stable order; none for no ids.
  public func userBatches(_ ids: Set<UUID>) -> [Endpoint] {
    let sorted = ids.sorted()
    return stride(from: 0, to: sorted.count, by: Endpoint.maxUserIDs).map { start in
      .getUsers(ids: Array(sorted[start..<min(start + Endpoint.maxUserIDs, sorted.count)]))
    }
  }

  /// Applies the self user.
  ///
  /// As with news of them, a key with a change of ours pending keeps its local value, and what
  /// the backend holds is recorded as its last synchronised value, so that giving the change up
  /// returns to it (after a catch-up, the fetch may be all that tells of a rename made on
  /// another device). The profile is heard at the version the response says it was read at, so
  /// an update in flight can tell whether it was read before or after its change.
  public func applySelfUser(_ response: TransportResponse, in context: ModelContext)
    throws(DownstreamError)
  {
    guard case .user(let payload) = try decode(response, for: selfUser) else { return }
    var user = PayloadMapping.user(payload, isSelf: true)
    context.news = HeardNews(response.serverVersion?.rawValue)
    defer { context.news = nil }
    // Keys an answer set after the profile was read keep the answer's values.
    Self.keepKeysAwaitingNews(of: &user, in: context)
    context.updateLastSynchronised(User.self, id: user.id) { $0 = user }
    context.applyRemote(user)
  }

  /// Applies a page of notifications, event by event.
  ///
  /// - Throws: ``DownstreamError/unknownSince(_:)`` for a 404 on `since`, other errors for other
  ///   statuses or an unreadable page.
  public func applyNotifications(
    _ response: TransportResponse, since: UUID?, in context: ModelContext
  ) throws(DownstreamError) -> NotificationApplication {
    apply(try readNotifications(response, since: since), since: since, in: context)
  }

  /// Reads a page of notifications without applying it.
  ///
  /// - Parameters:
  ///   - response: The answer to a fetch of the notifications after `since`.
  ///   - since: Where the page starts: the cursor the fetch asked from.
  ///   - earlier: The cursors a walk over pages asked from before `since`; a page that ends on
  ///     one of them leads back, and would have the walk read the same news again.
  /// - Throws: ``DownstreamError/unknownSince(_:)`` for a 404 on `since`,
  ///   ``DownstreamError/pageDidNotAdvance(_:after:)`` for a page that says the backend has
  ///   more but does not move past `since`, or that ends on a cursor in `earlier`, other errors
  ///   for other statuses or an unreadable page.
  public func readNotifications(
    _ response: TransportResponse, since: UUID?, earlier: Set<UUID> = []
  ) throws(DownstreamError) -> Page<NotificationPayload> {
    if response.status == 404, let since { throw .unknownSince(since) }
    guard case .notifications(let page) = try decode(response, for: notifications(since: since))
    else { throw .status(.getNotifications, response.status, nil) }
    // Asking on from the same cursor, or from one read before, would get these pages again.
    if page.hasMore, (page.cursor ?? since) == since {
      throw .pageDidNotAdvance(.getNotifications, after: since)
    }
    if let cursor = page.cursor, earlier.contains(cursor) {
      throw .pageDidNotAdvance(.getNotifications, after: since)
    }
    return page
  }

  /// Applies a page of notifications already read, event by event.
  public func apply(
    _ page: Page<NotificationPayload>, since: UUID?, in context: ModelContext
  ) -> NotificationApplication {
    var unknown: Set<UUID> = []
    var dropped: [DroppedChange] = []
    var updated: Set<UUID> = []
    var accepted: Set<UUID> = []
    var skipped = 0
    let events = page.elements.flatMap(\.events)
    let versions = page.elements.flatMap { notification in
      notification.events.map { _ in notification.version?.rawValue }
    }
    defer { context.news = nil }
    for (position, event) in events.enumerated() {
      context.news = HeardNews(versions[position])
      guard apply(event, in: context, unknownUsers: &unknown, dropped: &dropped) else {
        skipped += 1
        continue
      }
      switch event {
      // A user unknown here is fetched anyway; one known stays known for the whole page.
      case .userUpdate(let update) where !unknown.contains(update.id):
        updated.insert(update.id)
      case .connection(let payload) where payload.status == .accepted:
        accepted.insert(payload.to)
      default:
        break
      }
    }
    return NotificationApplication(
      count: page.elements.count, lastID: page.cursor ?? since, hasMore: page.hasMore,
      unknownUsers: unknown, updatedUsers: updated, acceptedContacts: accepted,
      skippedEvents: skipped, unreadable: page.unreadableElements, droppedChanges: dropped)
  }

  /// Applies a list of users, none of them the self user; only those `keeping` returns `true`
  /// for, so that an engine can leave out the users a later fetch or the news already set.
  public func applyUsers(
    _ response: TransportResponse, in context: ModelContext,
    keeping: (UUID) -> Bool = { _ in true }
  ) throws(DownstreamError) {
    guard case .users(let users) = try decode(response, for: .getUsers(ids: [])) else { return }
    context.news = HeardNews(response.serverVersion?.rawValue)
    defer { context.news = nil }
    for payload in users where keeping(payload.id) {
      let isSelf = context.selfUser?.id == payload.id
      context.applyRemote(PayloadMapping.user(payload, isSelf: isSelf))
    }
  }

  /// Applies one event; returns `false` for an event that was skipped.
  func apply(
    _ event: EventPayload, in context: ModelContext, unknownUsers: inout Set<UUID>,
    dropped: inout [DroppedChange]
  ) -> Bool {
    func need(_ ids: some Sequence<UUID>) {
      for id in ids where context.object(User.self, id: id) == nil { unknownUsers.insert(id) }
    }
    switch event {
    case .userUpdate(var update):
      if update.id == context.selfUser?.id { Self.passOverAnsweredValues(of: &update, in: context) }
      guard var user = context.object(User.self, id: update.id) else {
        unknownUsers.insert(update.id)
        return true
      }
      func applyUpdate(to user: inout User) {
        if let name = update.name { user.name = name }
        if let accent = update.accentID { user.accentID = accent }
        if let handle = update.handle { user.handle = handle }
      }
      applyUpdate(to: &user)
      // Keys with a change of ours pending keep their local value; what the server now holds
      // is still recorded, so the answer to that change is not taken as the last word.
      context.updateLastSynchronised(User.self, id: update.id, applyUpdate)
      context.applyRemote(user)
    case .connection(let payload):
      need([payload.to])
      let connection = PayloadMapping.connection(payload)
      if context.syncMetadata.passesOver(.connectionStatus(connection.id), heard: context.news) {
        return true
      }
      // As for a user: a status changed here and not yet answered keeps its local value, but
      // the server's is recorded, so the answer is not taken as the last word.
      context.updateLastSynchronised(Connection.self, id: connection.id) { $0 = connection }
      context.applyRemote(connection)
      // An accepted request turns its connection conversation into a one-to-one.
      if connection.status == .accepted, let id = connection.conversationID,
        var conversation = context.object(Conversation.self, id: id),
        conversation.kind == .connection
      {
        conversation.kind = .oneToOne
        context.applyRemote(conversation)
      }
    case .conversationCreate(let event):
      // Left here, and the backend answered after these news: the group stays gone. News after
      // the answer bring it back (another member added the self user again).
      if context.syncMetadata.passesOver(.leftGroup(event.data.id), heard: context.news) {
        return true
      }
      var conversation = PayloadMapping.conversation(event.data)
      Self.keepKeysAwaitingNews(of: &conversation, in: context)
      need(conversation.participantIDs)
      // Being left here: the news say what the backend holds, should the leave lose to them.
      let heard = conversation
      if Self.keepNews(ofLeaving: heard.id, in: context, { $0 = heard }) { return true }
      // News of the creation: the ones that follow tell what became of the group.
      if context.syncMetadata.createdGroupsToConfirm.contains(conversation.id) {
        context.syncMetadata.createdGroupsToConfirm.remove(conversation.id)
      }
      guard context.localChanges(of: Conversation.self).inserted.contains(conversation.id) else {
        // The whole group as the backend holds it, as a catch-up's lists give it: a group kept
        // here across the self user's removal and return takes what other members changed
        // while the user was out, and keeps what the user changed.
        applyHeld(conversation, in: context)
        return true
      }
      // This device's creation, not answered yet: the event says which of the versions it sent
      // the backend kept, so later events are applied to that one. The group here keeps what
      // the user changed since.
      context.hearCreation(conversation) { sent in
        sent.name == conversation.name && sent.participantIDs == conversation.participantIDs
      }
      context.applyRemote(conversation)
    case .conversationRename(let event):
      if context.syncMetadata.passesOver(.groupName(event.conversation), heard: context.news) {
        return true
      }
      func applyRename(to conversation: inout Conversation) {
        conversation.name = event.data
        conversation.lastEventTime = event.time
      }
      guard var conversation = context.object(Conversation.self, id: event.conversation) else {
        return Self.keepNews(ofLeaving: event.conversation, in: context, applyRename)
      }
      let changes = context.localChanges(of: Conversation.self)
      context.updateLastSynchronised(Conversation.self, id: event.conversation, applyRename)
      if changes.inserted.contains(conversation.id) {
        // The backend has the group but has not answered its creation yet: the group here takes
        // the name too, unless it was renamed here since the creation went.
        let sentName = changes.backendValue(of: conversation.id)?.name ?? conversation.name
        if conversation.name == sentName {
          _ = try? context.applyRemoteChange(Conversation.self, id: conversation.id, applyRename)
        }
        return true
      }
      applyRename(to: &conversation)
      context.applyRemote(conversation)
    case .memberJoin(let change), .memberLeave(let change):
      return applyMembership(
        event, change, in: context, need: need, dropped: &dropped)
    case .messageAdd(let event):
      guard context.object(Conversation.self, id: event.conversation) != nil else { return false }
      // Deleted here, and the backend answered: these news are older than that answer.
      if context.syncMetadata.isAwaitingNews(of: .deletedMessage(event.data.nonce)) {
        return true
      }
      need([event.from])
      let message = PayloadMapping.message(event.data)
      if context.localChanges(of: Message.self).inserted.contains(message.id) {
        // This device's message, not acknowledged here: perhaps an attempt the app lost track
        // of when it was killed. The backend holds it, so giving the message up must delete it
        // there, and the local one keeps its state until its own answer.
        context.updateLastSynchronised(Message.self, id: message.id) { $0 = message }
      }
      context.applyRemote(message)
    case .messageDelete(let event):
      // The backend deleted it: a deletion of it still pending here, perhaps refused (the self
      // user was out of the group then), is done, and giving it up would bring back a message
      // the backend no longer has. A request for it still out is settled by its answer.
      context.clearLocalDeletion(Message.self, id: event.data)
      context.applyRemoteDeletion(Message.self, id: event.data)
      context.syncMetadata.endWait(of: .deletedMessage(event.data))
    case .unknown:
      return false
    }
    return true
  }

  /// Records news of a group the user is leaving as what the backend now holds, so that giving
  /// up a refused leave brings back the group as the server has it; returns whether there was
  /// such a group (the news of any other group gone here are skipped).
  static func keepNews(
    ofLeaving id: UUID, in context: ModelContext, _ change: (inout Conversation) -> Void
  ) -> Bool {
    guard context.localChanges(of: Conversation.self).deleted.contains(id) else { return false }
    context.updateLastSynchronised(Conversation.self, id: id, change)
    return true
  }

  /// Drops conversation `id` here with its messages, since the backend removed the self user
  /// from it, and returns their changes that were still to be pushed, in order: the group's
  /// own, its new messages', then deletions of its messages.
  ///
  /// Only what a strategy would send counts: the group's name and members, new messages and
  /// deletions of sent ones (a message's other keys are this device's own). A deletion of a
  /// message, whose object is already gone here, is taken off the log too.
  static func drop(conversation id: UUID, in context: ModelContext) -> [DroppedChange] {
    var items: [SyncQueueSnapshot.Item] = []
    let conversations = context.localChanges(of: Conversation.self)
    let reference = ObjectReference(Conversation.entityName, id)
    if conversations.inserted.contains(id) {
      items.append(.init(object: reference, kind: .insert))
    } else {
      let keys = conversations.keys(of: id).intersection(ConversationStrategy().pushableKeys)
      if !keys.isEmpty {
        items.append(
          .init(object: reference, kind: .update, keys: KeySet(keys, of: Conversation.self)))
      }
    }
    let messages = context.localChanges(of: Message.self)
    for message in context.messages(inConversationWithID: id)
    where messages.inserted.contains(message.id) {
      items.append(.init(object: message.reference, kind: .insert))
    }
    let deletions = messages.deleted.filter { messages.originals[$0]?.conversationID == id }
    for message in deletions.sorted() {
      items.append(.init(object: ObjectReference(Message.entityName, message), kind: .delete))
      context.clearLocalDeletion(Message.self, id: message)
    }
    context.discardLocally(Conversation.self, id: id)
    context.syncMetadata.forgetChanges(ofGroup: id, before: context.news)
    return items.map { DroppedChange(item: $0, conversation: id) }
  }

  /// Members joined or left; when the self user left, the conversation and its messages go.
  private func applyMembership(
    _ event: EventPayload, _ change: ConversationEvent<[UUID]>, in context: ModelContext,
    need: (Set<UUID>) -> Void, dropped: inout [DroppedChange]
  ) -> Bool {
    let joined: Bool
    if case .memberJoin = event { joined = true } else { joined = false }
    let users = Set(change.data).subtracting(Self.membersPassedOver(change, in: context))
    if !joined, let me = context.selfUser?.id, change.from == me, change.data.contains(me),
      context.syncMetadata.isAwaitingNews(of: .leftGroup(change.conversation))
    {
      // The news of this device's leaving, answered already; the group is here only if news
      // brought the self user back while the leave was out, and goes now.
      context.syncMetadata.endWait(of: .leftGroup(change.conversation))
      if context.object(Conversation.self, id: change.conversation) == nil { return true }
    }
    guard var conversation = context.object(Conversation.self, id: change.conversation) else {
      // The self user left a group this device is leaving: the backend did it, so the leaving
      // is settled, and a later refusal of a resend cannot bring the group back.
      if !joined, let me = context.selfUser?.id, change.data.contains(me),
        context.localChanges(of: Conversation.self).deleted.contains(change.conversation)
      {
        context.clearLocalDeletion(Conversation.self, id: change.conversation)
        return true
      }
      return Self.keepNews(ofLeaving: change.conversation, in: context) {
        Self.change(&$0.participantIDs, joined: joined, users: users)
        $0.lastEventTime = change.time
      }
    }
    if joined {
      need(users)
    } else if let me = context.selfUser?.id, change.data.contains(me) {
      // An answer to a change of the group newer than these news shows the user back in it:
      // the news of the return follow, and the group stays with the changes pending here.
      if context.syncMetadata.isAnsweredAsMember(ofGroup: conversation.id, after: context.news) {
        return true
      }
      dropped += Self.drop(conversation: conversation.id, in: context)
      return true
    }
    let changes = context.localChanges(of: Conversation.self)
    if changes.inserted.contains(conversation.id) {
      // The backend has the group but has not answered its creation yet: what it now holds is
      // recorded, and the group here changes the same way except where its members changed
      // here since the creation went, so that a later local change of members is worked out
      // against the backend's members.
      let sent = changes.backendValue(of: conversation.id) ?? conversation
      mergeMembership(
        of: conversation.id, joined: joined, users: users, synchronised: sent.participantIDs,
        in: context)
      return true
    }
    if changes.keys(of: conversation.id).contains(.participantIDs),
      let synchronised = changes.originals[conversation.id]?.participantIDs
    {
      mergeMembership(
        of: conversation.id, joined: joined, users: users, synchronised: synchronised,
        in: context)
    } else {
      Self.change(&conversation.participantIDs, joined: joined, users: users)
    }
    conversation.lastEventTime = change.time
    context.applyRemote(conversation)
    return true
  }

  /// Members joined or left on the server while a local member change may wait to be pushed:
  /// the server's list is updated, and so is the local one, except for members the local
  /// change itself added or removed relative to `synchronised`, to the members as last
  /// synchronised when the user last changed them (`LocalChanges.editBases`), or to a list
  /// the backend may hold from a request of this device (that change wins, and is still
  /// sent).
  ///
  /// A member the user removed and added back while the removal was out is as in
  /// `synchronised`, but not as in the list the removal sent: news of the removal leave her in.
  /// Nor do news of older changes, which may pass through the user's list on their way (her
  /// addition and removal, both answered already), take her out.
  ///
  /// The members the news move here move in what the local change is measured from too (its
  /// edit base and the lists its requests may leave): they are not the user's change, and a
  /// member another member adds and then removes must not look added by the user.
  func mergeMembership(
    of id: UUID, joined: Bool, users: Set<UUID>, synchronised: Set<UUID>,
    in context: ModelContext
  ) {
    let changes = context.localChanges(of: Conversation.self)
    // What the user's change is measured against: the members as last synchronised, as they
    // were when the user last changed them (or as last acknowledged), and each list a request
    // of theirs may have left.
    let editBase =
      changes.keys(of: id).contains(.participantIDs) ? changes.editBases[id]?.participantIDs : nil
    let versions = changes.unconfirmed[id] ?? []
    // A list a recorded call may have left counts only at the members the call named: it keeps
    // what the call sent, which news since moved nowhere else.
    let bases: [(members: Set<UUID>, counted: Set<UUID>?)] =
      ([synchronised] + (editBase.map { [$0] } ?? [])
      + versions.compactMap(\.editedSince).filter { $0.keys.contains(.participantIDs) }
      .map(\.value.participantIDs)).map { ($0, nil) }
      + versions.filter { $0.keys.contains(.participantIDs) }.map {
        ($0.value.participantIDs, $0.call?.endpoint?.namedMembers)
      }
    // A member a call still out (or whose answer was lost) adds or removes stays as the user
    // left it: the call's answer places these news by version, and only news after it move the
    // member here.
    let inFlight = versions.reduce(into: Set<UUID>()) {
      $0.formUnion($1.call?.endpoint?.namedMembers ?? [])
    }
    context.updateLastSynchronised(Conversation.self, id: id) { original in
      Self.change(&original.participantIDs, joined: joined, users: users)
    }
    var movedHere: Set<UUID> = []
    var movedByUser: Set<UUID> = []
    _ = try? context.update(Conversation.self, id: id) { conversation in
      let here = conversation.participantIDs
      var locallyAdded: Set<UUID> = []
      var locallyRemoved: Set<UUID> = []
      for base in bases {
        let added = here.subtracting(base.members)
        let removed = base.members.subtracting(here)
        locallyAdded.formUnion(base.counted.map(added.intersection) ?? added)
        locallyRemoved.formUnion(base.counted.map(removed.intersection) ?? removed)
      }
      movedByUser = locallyAdded.union(locallyRemoved)
      movedHere = users.subtracting(joined ? locallyRemoved : locallyAdded).subtracting(inFlight)
      Self.change(&conversation.participantIDs, joined: joined, users: movedHere)
    }
    // The members the news moved here are not the user's change: what the change is measured
    // from moves with them. News that agree with a member the user moved do not settle it: the
    // user's call reaches the server after them, and only its answer settles it.
    let movedByNewsAlone = movedHere.subtracting(movedByUser)
    guard !movedByNewsAlone.isEmpty else { return }
    context.updateChangeBases(Conversation.self, id: id) { base in
      Self.change(&base.participantIDs, joined: joined, users: movedByNewsAlone)
    }
  }

  /// Adds `users` to `participants` when they joined, or takes them out when they left.
  private static func change(_ participants: inout Set<UUID>, joined: Bool, users: Set<UUID>) {
    if joined {
      participants.formUnion(users)
    } else {
      participants.subtract(users)
    }
  }

  func decode(_ response: TransportResponse, for endpoint: Endpoint)
    throws(DownstreamError) -> EndpointResponse
  {
    guard response.responseClass == .success else {
      throw .status(endpoint.route, response.status, try? APIError.parse(response.body))
    }
    switch endpoint.decodeResponse(status: response.status, body: response.body) {
    case .success(let answer): return answer
    case .failure(let error): throw .payload(error)
    }
  }
}
