import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import ParsingCore
import Seams
import UserParsing

/// The calls a test uses to set up the server's state, and to act as other users.
///
/// Each emits the notification events that the same change made through the API would.
extension FakeBackend {
  /// Creates the self user, the one the API acts for, and returns its id.
  @discardableResult
  public func insertSelfUser(id: UUID? = nil, name: String = "Me", handle: String? = nil) -> UUID {
    state.withLock { state in
      let id = state.insertUser(id: id, name: name, handle: handle)
      state.selfID = id
      return id
    }
  }

  /// Creates another user and returns its id.
  @discardableResult
  public func insertUser(
    id: UUID? = nil, name: String, handle: String? = nil, accentID: Int = 0, email: String? = nil
  ) -> UUID {
    state.withLock {
      $0.insertUser(id: id, name: name, handle: handle, accentID: accentID, email: email)
    }
  }

  /// A remote user asks the self user to connect: pending for self, with its conversation.
  ///
  /// - Returns: The conversation id, or `nil` without a self user or with an unknown user.
  @discardableResult
  public func requestConnectionRemotely(from user: UUID, message: String? = nil) -> UUID? {
    state.withLock { state in
      guard let me = state.selfID, state.users[user] != nil else { return nil }
      return state.requestConnection(from: user, to: me, message: message)?.conversation
    }
  }

  /// A remote user asks the self user to connect and the self user accepts, through the API as
  /// another device of theirs would: both sides accepted, with the news of both.
  ///
  /// - Returns: The one-to-one conversation's id, or `nil` without a self user or with an
  ///   unknown user.
  @discardableResult
  public func connectRemotely(with user: UUID) -> UUID? {
    guard let conversation = requestConnectionRemotely(from: user),
      case .success = answer(.updateConnection(user: user, ConnectionUpdate(status: .accepted)))
    else { return nil }
    return conversation
  }

  /// Connects two users, neither of whom need be the self user, through the API as their own
  /// devices would: `user` asks, `other` accepts, with the news of both.
  ///
  /// - Returns: The one-to-one conversation's id, or `nil` when either user is unknown or they
  ///   could not connect.
  @discardableResult
  public func connect(_ user: UUID, with other: UUID) -> UUID? {
    let name = self.user(other)?.name ?? ""
    guard
      case .success(.connection(let request)) = answer(
        .requestConnection(ConnectionRequest(user: other, name: name)), as: user
      ).answer,
      case .success = answer(
        .updateConnection(user: user, ConnectionUpdate(status: .accepted)), as: other
      ).answer
    else { return nil }
    return request.conversation
  }

  /// The remote user accepts the self user's request: both sides become accepted and the
  /// conversation one-to-one.
  ///
  /// - Returns: Whether there was a sent request to accept.
  @discardableResult
  public func acceptRemotely(by user: UUID) -> Bool {
    moveRequestRemotely(with: user, sentBySelf: true, to: .accepted)
  }

  /// The remote user withdraws the request they sent the self user: both sides become
  /// cancelled, whether the self user left the request pending or ignored it.
  ///
  /// - Returns: Whether there was a sent request to withdraw.
  @discardableResult
  public func cancelRequestRemotely(by user: UUID) -> Bool {
    moveRequestRemotely(with: user, sentBySelf: false, to: .cancelled)
  }

  /// Moves the request to connect between the self user and `user` to `status` on both sides,
  /// as `user`'s own device does; `sentBySelf` says which of the two sent it.
  ///
  /// - Returns: Whether there was such a sent request.
  private func moveRequestRemotely(
    with user: UUID, sentBySelf: Bool, to status: ConnectionStatus
  ) -> Bool {
    state.withLock { state in
      guard let me = state.selfID else { return false }
      let (sender, recipient) = sentBySelf ? (me, user) : (user, me)
      guard state.connections[.init(from: sender, to: recipient)]?.status == .sent,
        state.connections[.init(from: recipient, to: sender)] != nil
      else { return false }
      state.changeConnection(of: user, with: me, to: status)
      return true
    }
  }

  /// Whether every request must carry a bearer token that `POST /login` handed out, as on a
  /// real backend: when `true`, a request without one or with another is answered 401
  /// `invalid-token`; when `false` (the default), such a request acts for the self user, as a
  /// test of one client expects, and a handed-out token still acts for its user.
  public var requiresSignIn: Bool {
    get { state.withLock { $0.requiresSignIn } }
    set { state.withLock { $0.requiresSignIn = newValue } }
  }

  /// Whether every user the self user asks to connect accepts at once, with the events a
  /// remote acceptance emits: for scenarios where nobody else is at the keyboard, such as
  /// `courier serve --scenario demo`.
  public var contactsAcceptRequests: Bool {
    get { state.withLock { $0.contactsAcceptRequests } }
    set { state.withLock { $0.contactsAcceptRequests = newValue } }
  }

  /// A remote user posts `text` in a conversation, and returns its nonce.
  ///
  /// - Returns: The message's nonce, or `nil` for an unknown conversation.
  @discardableResult
  public func postMessageRemotely(in conversation: UUID, from user: UUID, text: String) -> UUID? {
    state.withLock { state in
      guard state.conversations[conversation] != nil else { return nil }
      let nonce = state.uuids.next()
      _ = state.post(nonce: nonce, text: text, in: conversation, from: user)
      return nonce
    }
  }

  /// The sender of a message deletes it on their own device, with the news every member gets.
  ///
  /// - Returns: Whether the conversation held the message.
  @discardableResult
  public func deleteMessageRemotely(_ nonce: UUID, in conversation: UUID) -> Bool {
    state.withLock { state in
      guard let sender = state.messages[conversation]?.first(where: { $0.nonce == nonce })?.from
      else { return false }
      state.deleteMessage(nonce, in: conversation, by: sender)
      return true
    }
  }

  /// A remote user renames a conversation.
  ///
  /// - Returns: Whether the conversation exists.
  @discardableResult
  public func renameRemotely(_ conversation: UUID, to name: String, by user: UUID) -> Bool {
    state.withLock { state in
      guard state.conversations[conversation] != nil else { return false }
      state.rename(conversation, to: name, by: user)
      return true
    }
  }

  /// Another user renames themselves on their own device; the self user hears of it, as from
  /// the real backend, only if the two are connected.
  ///
  /// - Returns: Whether the backend holds the user.
  @discardableResult
  public func renameUserRemotely(_ user: UUID, to name: String) -> Bool {
    state.withLock { state in
      guard state.users[user] != nil else { return false }
      state.updateUser(user, SelfUpdate(name: name))
      return true
    }
  }

  /// A remote user adds `users` to a conversation.
  ///
  /// - Returns: Whether anyone was added.
  @discardableResult
  public func addMembersRemotely(_ users: [UUID], to conversation: UUID, by user: UUID) -> Bool {
    state.withLock { !$0.addMembers(users, to: conversation, by: user).isEmpty }
  }

  /// A remote user removes `users` from a conversation.
  ///
  /// - Returns: Whether anyone was removed.
  @discardableResult
  public func removeMembersRemotely(_ users: [UUID], from conversation: UUID, by user: UUID)
    -> Bool
  {
    state.withLock { !$0.removeMembers(users, from: conversation, by: user).isEmpty }
  }

  /// A remote user creates a group with the self user and `members`, and returns its id.
  @discardableResult
  public func createGroupRemotely(name: String, by creator: UUID, members: [UUID]) -> UUID {
    state.withLock { state in
      let others = members + (state.selfID.map { [$0] } ?? [])
      return state.createConversation(type: .group, name: name, creator: creator, members: others)
        .id
    }
  }

  // MARK: - Reading the server's state

  /// The self user's id, once set up.
  public var selfUserID: UUID? { state.withLock { $0.selfID } }

  /// The user with `id`, as the server holds it.
  public func user(_ id: UUID) -> UserPayload? { state.withLock { $0.users[id] } }

  /// The server's version now: that of the last change it applied (`ServerVersion`), which
  /// its answers and notifications carry.
  public var version: ServerVersion { state.withLock { $0.version } }

  /// The connection from `from` to `to`, as the server holds it.
  public func connection(from: UUID, to: UUID) -> ConnectionPayload? {
    state.withLock { $0.connection(from: from, to: to) }
  }

  /// The conversation with `id`, as the self user sees it.
  public func conversation(_ id: UUID) -> ConversationPayload? {
    state.withLock { state in
      guard let conversation = state.conversations[id] else { return nil }
      return state.conversationPayload(conversation, for: state.selfID ?? conversation.creator)
    }
  }

  /// The name and members of a conversation as the server holds them, or `nil` for an unknown
  /// one: cheaper than ``conversation(_:)`` for a check that reads them after every step.
  public func conversationSummary(_ id: UUID) -> ServerSnapshot.Conversation? {
    state.withLock { $0.summary(of: id) }
  }

  /// The members of a conversation, in the order they joined; empty for an unknown one.
  public func members(of conversation: UUID) -> [UUID] {
    state.withLock { $0.members(of: conversation) }
  }

  /// The messages of a conversation, in the order the server accepted them.
  public func messages(in conversation: UUID) -> [MessagePayload] {
    state.withLock { $0.messages(in: conversation) }
  }

  /// What the server holds, read at once under its lock: for checks that compare many objects.
  ///
  /// Taking one costs a copy of the state's collections, which share their storage with the
  /// server until either side changes; what it holds is worked out when read.
  public var snapshot: ServerSnapshot {
    state.withLock { ServerSnapshot(state: $0) }
  }

  /// Every notification the fake still keeps for the self user, oldest first.
  public var notifications: [NotificationPayload] { state.withLock { $0.notifications } }

  /// Every notification the fake still keeps for `user`, oldest first: the changes that concern
  /// them (their own profile and their connections' ones, their side of each connection, and
  /// everything in the conversations they are members of).
  public func notifications(of user: UUID) -> [NotificationPayload] {
    state.withLock { $0.streams[user] ?? [] }
  }

  /// Forgets every notification but the newest `count`, as a backend that keeps them for a
  /// limited time does: a client asking for news after a forgotten one gets `404`.
  ///
  /// - Returns: The notifications it forgot, oldest first.
  @discardableResult
  public func expireNotifications(keepingLast count: Int) -> [NotificationPayload] {
    state.withLock { state in
      let forgotten = Array(state.notifications.dropLast(max(count, 0)))
      state.notifications.removeFirst(forgotten.count)
      return forgotten
    }
  }
}

/// What the fake server holds at one moment: users, connections, conversations with their
/// members, and each conversation's messages in the order the server accepted them.
///
/// The lookups (``user(_:)``, ``conversation(_:)``, ``messages(in:)``) cost one dictionary
/// lookup each; ``conversations`` and ``messages`` build a dictionary of everything.
public struct ServerSnapshot: Sendable {
  /// A conversation as the server holds it.
  ///
  /// Two are equal when they have the same name and the same members, in whatever order those
  /// joined.
  public struct Conversation: Sendable, Hashable {
    /// Its name, if it has one.
    public let name: String?
    /// Everyone taking part, the self user included, each once, in the order they joined.
    public let memberIDs: [UUID]

    /// The name and members of `conversation` as the server keeps it.
    init(_ conversation: ServerState.Conversation) {
      name = conversation.name
      memberIDs = conversation.members
    }

    /// Everyone taking part, the self user included.
    public var members: Set<UUID> { Set(memberIDs) }

    /// Whether exactly `users` take part: no one else, and every one of them.
    public func hasMembers(_ users: Set<UUID>) -> Bool {
      memberIDs.count == users.count && memberIDs.allSatisfy(users.contains)
    }

    /// Whether the two have the same name and the same members.
    public static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.name == rhs.name && lhs.hasMembers(rhs.members)
    }

    /// Hashes the name and the members, not the order they joined.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(name)
      hasher.combine(members)
    }
  }

  private let state: ServerState

  init(state: ServerState) {
    self.state = state
  }

  /// The self user's id, once set up.
  public var selfID: UUID? { state.selfID }

  /// Every user, by id.
  public var users: [UUID: UserPayload] { state.users }

  /// Every conversation, by id.
  public var conversations: [UUID: Conversation] {
    state.conversations.mapValues(Conversation.init)
  }

  /// The nonces of each conversation's messages, in the order the server accepted them.
  public var messages: [UUID: [UUID]] { state.messages.mapValues { $0.map(\.nonce) } }

  /// The user with `id`.
  public func user(_ id: UUID) -> UserPayload? { state.users[id] }

  /// The connection from `from` to `to`.
  public func connection(from: UUID, to: UUID) -> ConnectionPayload? {
    state.connection(from: from, to: to)
  }

  /// The name and members of the conversation `id`, or `nil` for an unknown one.
  public func conversation(_ id: UUID) -> Conversation? { state.summary(of: id) }

  /// The members of a conversation, in the order they joined; empty for an unknown one.
  public func members(of conversation: UUID) -> [UUID] { state.members(of: conversation) }

  /// The messages of a conversation, in the order the server accepted them.
  public func messages(in conversation: UUID) -> [MessagePayload] {
    state.messages(in: conversation)
  }
}
