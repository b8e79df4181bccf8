import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import JSON
import ParsingCore
import Seams
import Transport
import UserParsing

/// Everything the fake server knows, and the changes it can make; each change records the events
/// the real backend would send each user it concerns, in that user's notification stream.
struct ServerState {
  struct ConnectionKey: Hashable {
    let from: UUID
    let to: UUID
  }

  struct Conversation {
    var id: UUID
    var type: ConversationType
    var name: String?
    var creator: UUID
    var members: [UUID]
    var lastEventTime: Date
  }

  /// Where the ids of objects the server makes come from.
  var uuids: UUIDSource
  private let epoch: Date
  private var ticks = 0
  /// The user a request without a bearer token acts for: the self user of a test with one
  /// client.
  var selfID: UUID?
  /// The user each bearer token handed out by `POST /login` stands for.
  var tokens: [String: UUID] = [:]
  /// Whether a request must carry a token `POST /login` handed out, rather than act for the
  /// self user without one.
  var requiresSignIn = false
  /// Whether every connection request the self user sends is accepted at once by its recipient.
  var contactsAcceptRequests = false
  var users: [UUID: UserPayload] = [:]
  var userOrder: [UUID] = []
  var connections: [ConnectionKey: ConnectionPayload] = [:]
  var connectionOrder: [ConnectionKey] = []
  var conversations: [UUID: Conversation] = [:]
  var conversationOrder: [UUID] = []
  var messages: [UUID: [MessagePayload]] = [:]
  /// Every message ever posted, by nonce, deleted ones included: a repeated nonce is answered
  /// with the first message and never creates another.
  var messagesByNonce: [UUID: MessagePayload] = [:]
  /// Each user's notifications, oldest first.
  var streams: [UUID: [NotificationPayload]] = [:]
  /// The version of the last change the server applied; each notification takes the next one.
  var version = ServerVersion.zero
  /// The answers to requests that named an idempotency key, by key, with the call they answered:
  /// a repeat of the key is answered from here and changes nothing.
  var answersByIdempotencyKey: [String: KeyedAnswer] = [:]

  /// The first answer to a request that named an idempotency key.
  struct KeyedAnswer {
    /// The call it answered.
    let endpoint: Endpoint
    /// Who made the call.
    let user: UUID
    /// The answer, as the handler gave it.
    let answer: FakeBackend.Answer
    /// The server's version once it had answered.
    let version: ServerVersion
  }

  init(uuids: UUIDSource, epoch: Date) {
    self.uuids = uuids
    self.epoch = epoch
  }

  // MARK: - Reading, for the fake's public reads and its snapshots alike

  /// The connection from `from` to `to`.
  func connection(from: UUID, to: UUID) -> ConnectionPayload? {
    connections[ConnectionKey(from: from, to: to)]
  }

  /// The name and members of the conversation `id`, or `nil` for an unknown one.
  func summary(of id: UUID) -> ServerSnapshot.Conversation? {
    conversations[id].map(ServerSnapshot.Conversation.init)
  }

  /// The members of a conversation, in the order they joined; empty for an unknown one.
  func members(of conversation: UUID) -> [UUID] { conversations[conversation]?.members ?? [] }

  /// The messages of a conversation, in the order the server accepted them.
  func messages(in conversation: UUID) -> [MessagePayload] { messages[conversation] ?? [] }

  /// The server's clock: one second later at every change, so runs are reproducible.
  mutating func tick() -> Date {
    ticks += 1
    return epoch.addingTimeInterval(TimeInterval(ticks))
  }

  /// The self user's notifications, oldest first; none without a self user.
  var notifications: [NotificationPayload] {
    get { selfID.flatMap { streams[$0] } ?? [] }
    set { if let selfID { streams[selfID] = newValue } }
  }

  /// One change, told to each recipient as the events given for them, all with the change's
  /// version.
  ///
  /// The self user's notification takes the next id of the id source, as it always has; another
  /// user's is made from their id and the version, so that more listeners do not change the ids
  /// a seeded run makes.
  mutating func notify(_ told: [(recipient: UUID, events: [EventPayload])]) {
    version = version.next
    for (recipient, told) in told {
      guard !told.isEmpty else { continue }
      let id = recipient == selfID ? uuids.next() : Self.notificationID(for: recipient, version)
      streams[recipient, default: []].append(
        NotificationPayload(id: id, version: version, events: told))
    }
  }

  /// One change, told to each of `recipients` as the same events.
  mutating func notify(_ recipients: some Sequence<UUID>, _ events: [EventPayload]) {
    guard !events.isEmpty else { return }
    notify(recipients.map { ($0, events) })
  }

  /// The id of `recipient`'s notification of the change with `version`: their id with the version
  /// mixed into its last eight bytes, unique within their stream.
  static func notificationID(for recipient: UUID, _ version: ServerVersion) -> UUID {
    var bytes = recipient.uuid
    withUnsafeMutableBytes(of: &bytes) { raw in
      var mixed = version.rawValue
      for index in 8..<16 {
        raw[index] ^= UInt8(truncatingIfNeeded: mixed)
        mixed >>= 8
      }
    }
    return UUID(uuid: bytes)
  }

  /// Everyone who hears of changes to `user`'s profile: the user, and the users connected to them.
  func audience(ofUser user: UUID) -> [UUID] {
    [user]
      + connectionOrder.filter { $0.to == user && connections[$0]?.status == .accepted }.map(
        \.from)
  }

  // MARK: - Users

  @discardableResult
  mutating func insertUser(
    id: UUID? = nil, name: String, handle: String? = nil, accentID: Int = 0, email: String? = nil
  ) -> UUID {
    let user = UserPayload(
      id: id ?? uuids.next(), name: name, handle: handle, accentID: accentID, email: email)
    if users.updateValue(user, forKey: user.id) == nil { userOrder.append(user.id) }
    return user.id
  }

  mutating func updateUser(_ id: UUID, _ update: SelfUpdate) {
    guard var user = users[id] else { return }
    if let name = update.name { user.name = name }
    if let accentID = update.accentID { user.accentID = accentID }
    switch update.handle {
    case .set(let handle)?: user.handle = handle
    case .remove?: user.handle = nil
    case nil: break
    }
    users[id] = user
    // The backend tells a user of their own changes and of their connections' ones.
    var handle: String?
    if case .set(let text)? = update.handle { handle = text }
    notify(
      audience(ofUser: id),
      [
        .userUpdate(
          UserUpdatePayload(id: id, name: update.name, accentID: update.accentID, handle: handle))
      ])
  }

  // MARK: - Conversations

  func conversationPayload(_ conversation: Conversation, for viewer: UUID) -> ConversationPayload {
    ConversationPayload(
      id: conversation.id, type: conversation.type, name: conversation.name,
      creator: conversation.creator, selfMember: viewer,
      otherMembers: conversation.members.filter { $0 != viewer },
      lastEventTime: conversation.lastEventTime)
  }

  @discardableResult
  mutating func createConversation(
    id: UUID? = nil, type: ConversationType, name: String?, creator: UUID, members: [UUID]
  ) -> Conversation {
    let time = tick()
    var unique: [UUID] = [creator]
    for member in members where !unique.contains(member) { unique.append(member) }
    let conversation = Conversation(
      id: id ?? uuids.next(), type: type, name: name, creator: creator, members: unique,
      lastEventTime: time)
    conversations[conversation.id] = conversation
    conversationOrder.append(conversation.id)
    notify(
      unique.map { member in
        (
          member,
          [
            .conversationCreate(
              ConversationEvent(
                conversation: conversation.id, from: creator, time: time,
                data: conversationPayload(conversation, for: member)))
          ]
        )
      })
    return conversation
  }

  mutating func rename(_ id: UUID, to name: String, by user: UUID) {
    let time = tick()
    conversations[id]?.name = name
    conversations[id]?.lastEventTime = time
    notify(
      members(of: id),
      [.conversationRename(ConversationEvent(conversation: id, from: user, time: time, data: name))]
    )
  }

  /// Adds `users` who are not members yet, each once however often the list names them;
  /// returns those added.
  mutating func addMembers(_ users: [UUID], to id: UUID, by user: UUID) -> [UUID] {
    guard let conversation = conversations[id] else { return [] }
    var added: [UUID] = []
    for user in users where !conversation.members.contains(user) && !added.contains(user) {
      added.append(user)
    }
    guard !added.isEmpty else { return [] }
    let time = tick()
    conversations[id]?.members += added
    conversations[id]?.lastEventTime = time
    // A user who joins learns the conversation itself, as a new member of a real one would.
    if let joined = conversations[id] {
      notify(
        added.map { member in
          (
            member,
            [
              .conversationCreate(
                ConversationEvent(
                  conversation: id, from: user, time: time,
                  data: conversationPayload(joined, for: member)))
            ]
          )
        })
    }
    notify(
      members(of: id),
      [.memberJoin(ConversationEvent(conversation: id, from: user, time: time, data: added))])
    return added
  }

  /// Removes `users` who are members; returns those removed.
  mutating func removeMembers(_ users: [UUID], from id: UUID, by user: UUID) -> [UUID] {
    guard let conversation = conversations[id] else { return [] }
    let removed = users.filter { conversation.members.contains($0) }
    guard !removed.isEmpty else { return [] }
    let time = tick()
    conversations[id]?.members.removeAll { removed.contains($0) }
    conversations[id]?.lastEventTime = time
    // Those removed hear of it too.
    notify(
      conversation.members,
      [.memberLeave(ConversationEvent(conversation: id, from: user, time: time, data: removed))])
    return removed
  }

  /// Posts a message, or returns the one posted earlier with the same nonce.
  mutating func post(nonce: UUID, text: String, in id: UUID, from user: UUID) -> (
    MessagePayload, created: Bool
  ) {
    if let existing = messagesByNonce[nonce] { return (existing, false) }
    let time = tick()
    let message = MessagePayload(nonce: nonce, conversation: id, from: user, text: text, time: time)
    messages[id, default: []].append(message)
    messagesByNonce[nonce] = message
    conversations[id]?.lastEventTime = time
    notify(
      members(of: id),
      [.messageAdd(ConversationEvent(conversation: id, from: user, time: time, data: message))])
    return (message, true)
  }

  /// Deletes the message `nonce` for everyone; its nonce stays known, so a late resend of it
  /// creates nothing.
  mutating func deleteMessage(_ nonce: UUID, in id: UUID, by user: UUID) {
    guard messages[id]?.contains(where: { $0.nonce == nonce }) == true else { return }
    let time = tick()
    messages[id]?.removeAll { $0.nonce == nonce }
    notify(
      members(of: id),
      [.messageDelete(ConversationEvent(conversation: id, from: user, time: time, data: nonce))])
  }

  // MARK: - Connections

  /// Sets the status of the connection `from` → `to`, notifying the self user of their side.
  mutating func setConnection(
    from: UUID, to: UUID, status: ConnectionStatus, conversation: UUID, message: String?,
    time: Date
  ) {
    let key = ConnectionKey(from: from, to: to)
    let connection = ConnectionPayload(
      from: from, to: to, status: status, conversation: conversation, lastUpdate: time,
      message: message ?? connections[key]?.message)
    if connections.updateValue(connection, forKey: key) == nil { connectionOrder.append(key) }
    notify([from], [.connection(connection)])
  }

  /// Creates a request from `from` to `to`: sent on one side, pending on the other, with a
  /// connection conversation.
  mutating func requestConnection(from: UUID, to: UUID, message: String?) -> ConnectionPayload? {
    let conversation = createConversation(
      type: .connection, name: users[to]?.name, creator: from, members: [from])
    let time = tick()
    setConnection(
      from: from, to: to, status: .sent, conversation: conversation.id, message: message,
      time: time)
    setConnection(
      from: to, to: from, status: .pending, conversation: conversation.id, message: message,
      time: time)
    return connections[ConnectionKey(from: from, to: to)]
  }

  /// Whether `user` may move their side of a connection from `current` to `next`.
  static func allows(_ current: ConnectionStatus, _ next: ConnectionStatus) -> Bool {
    switch (current, next) {
    case (.sent, .cancelled), (.pending, .accepted), (.pending, .ignored),
      (.accepted, .blocked), (.blocked, .accepted), (.ignored, .accepted), (.ignored, .blocked),
      (.pending, .blocked), (.missingLegalholdConsent, .blocked):
      true
    default: false
    }
  }

  /// Applies `user`'s change of their side of the connection with `other`, and what it means
  /// for the other side and the conversation.
  mutating func changeConnection(of user: UUID, with other: UUID, to next: ConnectionStatus) {
    guard let mine = connections[ConnectionKey(from: user, to: other)] else { return }
    let time = tick()
    setConnection(
      from: user, to: other, status: next, conversation: mine.conversation, message: nil,
      time: time)
    switch (mine.status, next) {
    case (.sent, .cancelled):
      setConnection(
        from: other, to: user, status: .cancelled, conversation: mine.conversation, message: nil,
        time: time)
    case (.pending, .accepted), (.ignored, .accepted):
      setConnection(
        from: other, to: user, status: .accepted, conversation: mine.conversation, message: nil,
        time: time)
      conversations[mine.conversation]?.type = .oneToOne
      _ = addMembers([user], to: mine.conversation, by: user)
    default:
      break
    }
  }
}
