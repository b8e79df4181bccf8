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
  /// this context does not hold, is placed by its times as if it were here. The saved messages
  /// of the page are read from the store's index of places, so a page costs as much as its
  /// messages and the unsaved edits, not the conversation; the context does not keep them.
  public func latestMessages(in conversation: Conversation, limit: Int, before: Message? = nil)
    -> [Message]
  {
    guard limit > 0 else { return [] }
    let pending = edits.edits(of: Message.self)
    // Saved messages with unsaved edits are passed over below: read as many more.
    let (wanted, overflow) = limit.addingReportingOverflow(pending.count)
    let saved =
      readSaved {
        try $0.children(
          Message.self, of: conversation.id, limit: overflow ? Int.max : wanted, before: before)
      } ?? []
    let isShown: (Message) -> Bool = { message in
      before.map { Message.displayOrder(message, $0) } ?? true
    }
    // Unsaved messages of the conversation, few, in display order; the saved ones they replace
    // or delete are passed over below.
    var edited = pending.values.compactMap { $0 }
      .filter { $0.conversationID == conversation.id && isShown($0) }
    edited.sort(by: Message.displayOrder)
    // The saved messages are in display order and end where `before` would stand.
    var next = saved.count - 1
    var nextEdited = edited.count - 1
    // The page, latest first, merged from both ends backwards until it holds `limit`.
    var page: [Message] = []
    page.reserveCapacity(limit)
    while page.count < limit {
      while next >= 0, pending[saved[next].id] != nil { next -= 1 }
      let savedMessage = next >= 0 ? saved[next] : nil
      let editedMessage = nextEdited >= 0 ? edited[nextEdited] : nil
      switch (savedMessage, editedMessage) {
      case (let message?, let edit?) where Message.displayOrder(message, edit):
        page.append(edit)
        nextEdited -= 1
      case (let message?, _):
        page.append(message)
        next -= 1
      case (nil, let edit?):
        page.append(edit)
        nextEdited -= 1
      case (nil, nil):
        return page.reversed()
      }
    }
    return page.reversed()
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
