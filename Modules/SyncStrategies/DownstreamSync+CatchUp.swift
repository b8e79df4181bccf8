import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import JSON
import Models
import ParsingCore
import Transport

/// What catching up with the state the backend holds did to a context.
public struct CatchUpApplication: Sendable, Equatable {
  /// The users the lists named, whose profiles may have changed in news the backend forgot:
  /// they are owed a fetch.
  public let namedUsers: Set<UUID>
  /// The conversations here that the backend no longer lists for the self user, dropped with
  /// their messages.
  public let droppedConversations: Set<UUID>
  /// The changes still to be pushed that went with them, in order.
  public let droppedChanges: [DroppedChange]
}

/// What applying the news a backend still holds did, after a catch-up read its lists.
public struct KeptNewsApplication: Sendable, Equatable {
  /// The users the applied events named that the context does not know: they are owed a fetch.
  public let unknownUsers: Set<UUID>
  /// The groups created here that the news showed the self user is no longer in, dropped with
  /// their messages.
  public let droppedConversations: Set<UUID>
  /// The changes still to be pushed that went with them, in order.
  public let droppedChanges: [DroppedChange]
  /// The groups created here, unanswered and left out of the lists, whose creation the news did
  /// not tell of either: the backend may have applied it and forgotten what followed, so once
  /// the creation is answered they owe another catch-up
  /// (`SyncMetadata.createdGroupsToConfirm`).
  public let unconfirmedGroups: Set<UUID>
}

extension DownstreamSync {
  /// `GET /notifications/last`: the newest notification, after which news are read once a
  /// client has caught up.
  public var lastNotification: Endpoint { .lastNotification }

  /// `GET /connections?size=&start=`: a page of the self user's connections, after the one
  /// with the user `start` (from the first if `nil`).
  public func connections(after start: UUID?) -> Endpoint {
    .getConnections(Paging(size: pageSize, start: start))
  }

  /// `GET /conversations?size=&start=`: a page of the self user's conversations, after
  /// conversation `start` (from the first if `nil`).
  public func conversations(after start: UUID?) -> Endpoint {
    .getConversations(Paging(size: pageSize, start: start))
  }

  /// The id of the newest notification the backend holds, or `nil` when it holds none (a
  /// `404`).
  public func readLastNotificationID(_ response: TransportResponse) throws(DownstreamError)
    -> UUID?
  {
    if response.status == 404 { return nil }
    guard case .notification(let notification) = try decode(response, for: lastNotification)
    else { throw Self.unexpectedAnswer(to: .lastNotification) }
    return notification.id
  }

  /// A page of the self user's connections.
  public func readConnections(_ response: TransportResponse) throws(DownstreamError)
    -> Page<ConnectionPayload>
  {
    guard case .connections(let page) = try decode(response, for: connections(after: nil)) else {
      throw Self.unexpectedAnswer(to: .getConnections)
    }
    return page
  }

  /// A page of the self user's conversations.
  public func readConversations(_ response: TransportResponse) throws(DownstreamError)
    -> Page<ConversationPayload>
  {
    guard case .conversations(let page) = try decode(response, for: conversations(after: nil))
    else { throw Self.unexpectedAnswer(to: .getConversations) }
    return page
  }

  /// The error for a success without the list or notification `route` answers with, such as a
  /// `204`: read as an empty list, it would drop every conversation here.
  private static func unexpectedAnswer(to route: Route) -> DownstreamError {
    .payload(.payload(route, .notAnObject(found: .null)))
  }

  /// Applies every connection and conversation the backend holds for the self user, as a
  /// client does that cannot read the news since its cursor any more.
  ///
  /// The merge rules are the news' rules: a key with a change here that is not yet pushed
  /// keeps its local value and records the backend's as the last synchronised one, and members
  /// another user added or removed join or leave here too, unless this device changed the same
  /// members. When `complete`, a conversation here that the lists leave out, other than one
  /// created here and not answered yet, is one the self user is no longer in, and goes with its
  /// messages; lists with unreadable elements are not complete, and drop nothing. A group the
  /// lists show the self user in while they are leaving it keeps the leave pending; a leave
  /// already out is placed by its answer's version against the lists' (a leave older than the
  /// lists gives way to them), and is never sent again.
  ///
  /// Each value is heard at `version`, the version the backend said before the lists were
  /// read (`TransportResponse.serverVersion`), so that an update in flight can place it
  /// in the server's order: every page was read at that version or later, and the news after
  /// it are read next. What an answer of this device set above that version keeps the answer's
  /// value, as with news (`SyncMetadata.awaitedNews`): a group it left does not come back, a
  /// group it created is not dropped (``applyKeptNews(_:listed:complete:in:)`` puts it to
  /// confirm), and the names, members and statuses it set stay. A group whose name or members
  /// an answer above that version changed is not dropped either: the backend changes them only
  /// for a member, so the self user was back in it by then, and the news of the return follow.
  public func applyHeldState(
    connections: [ConnectionPayload], conversations: [ConversationPayload], complete: Bool,
    readAt version: ServerVersion? = nil, in context: ModelContext
  ) -> CatchUpApplication {
    context.news = HeardNews(version?.rawValue)
    defer { context.news = nil }
    var named: Set<UUID> = []
    for payload in connections {
      named.insert(payload.to)
      var connection = PayloadMapping.connection(payload)
      Self.keepStatusAwaitingNews(of: &connection, in: context)
      context.updateLastSynchronised(Connection.self, id: connection.id) { $0 = connection }
      context.applyRemote(connection)
    }
    let metadata = context.syncMetadata
    for payload in conversations
    where !metadata.isAnswered(.leftGroup(payload.id), after: context.news) {
      var conversation = PayloadMapping.conversation(payload)
      Self.keepKeysAwaitingNews(of: &conversation, in: context)
      named.formUnion(conversation.participantIDs)
      applyHeld(conversation, in: context)
    }
    var gone: Set<UUID> = []
    var dropped: [DroppedChange] = []
    if complete {
      let listed = Set(conversations.map(\.id))
      let inserted = context.localChanges(of: Conversation.self).inserted
      for conversation in context.objects(Conversation.self)
      where !listed.contains(conversation.id) && !inserted.contains(conversation.id)
        && !metadata.isAnswered(.createdGroup(conversation.id), after: context.news)
        && !metadata.isAnsweredAsMember(ofGroup: conversation.id, after: context.news)
      {
        gone.insert(conversation.id)
        dropped += Self.drop(conversation: conversation.id, in: context)
      }
    }
    if let me = context.selfUser?.id { named.remove(me) }
    return CatchUpApplication(
      namedUsers: named, droppedConversations: gone, droppedChanges: dropped)
  }

  /// Applies what the lists of a catch-up could not tell from `notifications`, the news the
  /// backend still holds, oldest first: their messages, and the events of the groups created
  /// here and not answered that the lists (`listed`, every conversation they held) left out.
  ///
  /// The API keeps messages only in its news. Such a group is left out either because the
  /// backend never got its creation or because the self user is no longer in it, and only the
  /// news can say which. Every other event is older than the lists, and would put older values
  /// back.
  ///
  /// A group left out that the news do not tell the creation of is one the backend may have
  /// created and then removed the self user from, with news it forgot: it is kept in
  /// `SyncMetadata.createdGroupsToConfirm` until lists read after its creation's answer
  /// settle it. The set is worked out anew; with lists that were not `complete` (an element
  /// could not be read), the groups it held that the lists did not show stay in it.
  public func applyKeptNews(
    _ notifications: [NotificationPayload], listed: Set<UUID>, complete: Bool = true,
    in context: ModelContext
  ) -> KeptNewsApplication {
    let unlisted = context.localChanges(of: Conversation.self).inserted.subtracting(listed)
    var unknown: Set<UUID> = []
    var dropped: [DroppedChange] = []
    var created: Set<UUID> = []
    defer { context.news = nil }
    for (event, version) in notifications.lazy.flatMap({ news in
      news.events.lazy.map { ($0, news.version) }
    }) {
      context.news = HeardNews(version?.rawValue)
      switch event {
      case .messageAdd, .messageDelete:
        break
      case .conversationCreate(let event) where unlisted.contains(event.data.id):
        created.insert(event.data.id)
      case .conversationRename(let event) where unlisted.contains(event.conversation):
        break
      case .memberJoin(let event) where unlisted.contains(event.conversation),
        .memberLeave(let event) where unlisted.contains(event.conversation):
        break
      default:
        continue
      }
      _ = apply(event, in: context, unknownUsers: &unknown, dropped: &dropped)
    }
    let gone = unlisted.filter { context.object(Conversation.self, id: $0) == nil }
    var unconfirmed = unlisted.subtracting(gone).subtracting(created)
    // A group whose creation was answered above the lists' version, which they leave out and
    // kept: a creation sent again may have been applied long before, and the self user removed
    // since, so lists read after the answer settle it.
    for case .createdGroup(let id) in context.syncMetadata.awaitedNews.keys
    where !listed.contains(id) && !created.contains(id)
      && context.object(Conversation.self, id: id) != nil
    {
      unconfirmed.insert(id)
    }
    if !complete {
      unconfirmed.formUnion(
        context.syncMetadata.createdGroupsToConfirm.subtracting(listed).filter {
          context.object(Conversation.self, id: $0) != nil
        })
    }
    context.syncMetadata.createdGroupsToConfirm = unconfirmed
    return KeptNewsApplication(
      unknownUsers: unknown, droppedConversations: gone, droppedChanges: dropped,
      unconfirmedGroups: unconfirmed)
  }

  /// Forgets the groups to confirm (`SyncMetadata.createdGroupsToConfirm`) that are
  /// gone here, and returns those whose creation is no longer pending: the backend has answered
  /// it, and only a catch-up, whose lists are read after the answer, can tell whether the self
  /// user is still in them.
  public func confirmCreatedGroups(in context: ModelContext) -> Set<UUID> {
    let waiting = context.syncMetadata.createdGroupsToConfirm
    guard !waiting.isEmpty else { return [] }
    let here = waiting.filter { context.object(Conversation.self, id: $0) != nil }
    if here != waiting { context.syncMetadata.createdGroupsToConfirm = here }
    return here.subtracting(context.localChanges(of: Conversation.self).inserted)
  }

  /// Applies one conversation as the backend holds it now, from a catch-up's lists or from
  /// news that tell the whole group (the self user joined it).
  func applyHeld(_ conversation: Conversation, in context: ModelContext) {
    let changes = context.localChanges(of: Conversation.self)
    if !changes.inserted.contains(conversation.id),
      changes.keys(of: conversation.id).contains(.participantIDs),
      let synchronised = changes.originals[conversation.id]?.participantIDs
    {
      // Members changed on both sides: the backend's changes since the last synchronised list
      // join or leave here too, except those this device changed itself.
      let server = conversation.participantIDs
      mergeMembership(
        of: conversation.id, joined: true, users: server.subtracting(synchronised),
        synchronised: synchronised, in: context)
      mergeMembership(
        of: conversation.id, joined: false, users: synchronised.subtracting(server),
        synchronised: synchronised, in: context)
    }
    context.updateLastSynchronised(Conversation.self, id: conversation.id) { $0 = conversation }
    context.applyRemote(conversation)
  }
}
