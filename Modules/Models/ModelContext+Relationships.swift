import Foundation

extension ModelContext {
  /// The self user, if the store knows it.
  ///
  /// Strategies ask for it once per pending object while planning, so the answer is kept until
  /// the context's edits or saved objects change.
  public var selfUser: User? {
    if let cached = selfUserCache { return cached }
    let found = findSelfUser()
    selfUserCache = .some(found)
    return found
  }

  private func findSelfUser() -> User? {
    if let edited = edits.edits(of: User.self).values.first(where: { $0?.isSelf == true }) {
      return edited
    }
    return committed.rows(of: User.self).values.first { user in
      user.isSelf && edits.edit(User.self, id: user.id) == nil
    }
  }

  /// The connection with `user`, if there is one.
  public func connection(of user: User) -> Connection? {
    object(Connection.self, id: user.id)
  }

  /// The user on the other side of `connection`.
  public func user(of connection: Connection) -> User? {
    object(User.self, id: connection.to)
  }

  /// The conversation that belongs to `connection`, once the backend made it.
  public func conversation(of connection: Connection) -> Conversation? {
    connection.conversationID.flatMap { object(Conversation.self, id: $0) }
  }

  /// The connection whose conversation `conversation` is, if any.
  public func connection(of conversation: Conversation) -> Connection? {
    objects(Connection.self, referringTo: conversation.id, via: Connection.conversation).first
  }

  /// The users taking part in `conversation` that this context knows, ordered by name.
  public func participants(of conversation: Conversation) -> [User] {
    conversation.participantIDs.compactMap { object(User.self, id: $0) }
      .sorted { ($0.name, $0.id) < ($1.name, $1.id) }
  }

  /// The conversations `user` takes part in, ordered by id.
  public func conversations(of user: User) -> [Conversation] {
    objects(Conversation.self, referringTo: user.id, via: Conversation.participants)
  }

  /// The conversation `message` belongs to.
  public func conversation(of message: Message) -> Conversation? {
    object(Conversation.self, id: message.conversationID)
  }

  /// The messages in `conversation`: sent ones by server time, then unsent ones by local time.
  public func messages(in conversation: Conversation) -> [Message] {
    messages(inConversationWithID: conversation.id)
  }

  /// The messages in the conversation `id`, in display order, even if the conversation itself is
  /// not (or no longer) known.
  public func messages(inConversationWithID id: UUID) -> [Message] {
    objects(Message.self, referringTo: id, via: Message.conversation)
      .sorted(by: Message.displayOrder)
  }

  /// One screen of `conversation`'s messages: the latest `limit` of those shown before
  /// `before` (of all of them without it), in display order.
  ///
  /// A chat screen opens on the latest page and, as the user scrolls back, asks for the page
  /// before the first message it shows:
  ///
  /// ```swift
  /// let page = context.latestMessages(in: lunch, limit: 50)
  /// let older = context.latestMessages(in: lunch, limit: 50, before: page.first)
  /// ```
  ///
  /// A `limit` of zero or less gives an empty page; a `before` of another conversation, or one
  /// this context does not hold, is placed by its times as if it were here.
  public func latestMessages(in conversation: Conversation, limit: Int, before: Message? = nil)
    -> [Message]
  {
    guard limit > 0 else { return [] }
    let rows = objectsByID(Message.self)
    let relationship = Message.conversation
    var ids = committed.sources(Message.self, referringTo: conversation.id, via: relationship.name)
    if !edits.isEmpty(Message.self) {
      ids.formUnion(edits[Message.self].referrers(of: conversation.id, via: relationship))
    }
    // The page, in display order, kept at `limit` as the messages are read: no sort of them all.
    var page: [Message] = []
    page.reserveCapacity(limit)
    for id in ids {
      guard let message = rows[id], message.conversationID == conversation.id else { continue }
      if let before, !Message.displayOrder(message, before) { continue }
      if page.count == limit {
        guard let earliest = page.first, Message.displayOrder(earliest, message) else { continue }
        page.removeFirst()
      }
      page.insert(message, at: Self.position(of: message, in: page))
    }
    return page
  }

  /// Where `message` goes in `page`, which is in display order: after every message shown
  /// before it.
  private static func position(of message: Message, in page: [Message]) -> Int {
    var low = 0
    var high = page.count
    while low < high {
      let middle = (low + high) / 2
      if Message.displayOrder(page[middle], message) { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// The conversations this context holds, the one with the latest event first (ties by id),
  /// at most `limit` of them when one is given: the list a chat app opens on.
  ///
  /// ```swift
  /// for conversation in context.recentConversations(limit: 20) {
  ///   print(conversation.name ?? "chat", conversation.lastEventTime)
  /// }
  /// ```
  public func recentConversations(limit: Int? = nil) -> [Conversation] {
    let sorted = objects(Conversation.self).sorted { lhs, rhs in
      lhs.lastEventTime != rhs.lastEventTime
        ? lhs.lastEventTime > rhs.lastEventTime : lhs.id < rhs.id
    }
    guard let limit else { return sorted }
    return Array(sorted.prefix(max(limit, 0)))
  }
}

extension Message {
  /// Whether `lhs` is shown before `rhs`: sent messages by server time, unsent ones after them by
  /// local time, ties by nonce.
  static func displayOrder(_ lhs: Message, _ rhs: Message) -> Bool {
    switch (lhs.serverTime, rhs.serverTime) {
    case (let left?, let right?) where left != right: return left < right
    case (.some, .none): return true
    case (.none, .some): return false
    default:
      if lhs.localTime != rhs.localTime { return lhs.localTime < rhs.localTime }
      return lhs.nonce < rhs.nonce
    }
  }
}
