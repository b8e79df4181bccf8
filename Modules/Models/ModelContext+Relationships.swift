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
