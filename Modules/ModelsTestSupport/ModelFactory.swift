import Foundation
import Models
import Seams

/// Builds valid model objects with defaults, so a test states only what matters to it.
///
/// ```swift
/// let make = ModelFactory()
/// let me = make.selfUser()
/// let alice = make.user(name: "Alice")
/// let request = make.connection(from: me, to: alice, status: .sent)
/// ```
///
/// Ids come from the UUID source, the test's deterministic one by default; times start at `now`
/// and each new message is one second later than the one before.
public final class ModelFactory: Sendable {
  /// Where the factory's ids come from.
  public let uuids: UUIDSource
  /// The time objects are stamped with.
  public let now: Date
  private let counter = Counter()

  /// Creates a factory drawing ids from `uuids`, stamping objects with `now`.
  public init(uuids: UUIDSource = .current, now: Date = Date(timeIntervalSince1970: 1_800_000_000))
  {
    self.uuids = uuids
    self.now = now
  }

  /// A user other than the self user, named `User N` unless a name is given.
  public func user(
    name: String? = nil, handle: String? = nil, accentID: Int = 1, email: String? = nil
  ) -> User {
    User(
      id: uuids.next(), name: name ?? "User \(counter.next())", handle: handle,
      accentID: accentID, email: email)
  }

  /// The self user.
  public func selfUser(name: String = "Me") -> User {
    User(id: uuids.next(), isSelf: true, name: name, accentID: 0)
  }

  /// A connection from `from` to `to`, stamped `now`.
  public func connection(
    from: User, to: User, status: Connection.Status = .sent, conversation: Conversation? = nil,
    message: String? = nil
  ) -> Connection {
    Connection(
      from: from.id, to: to.id, status: status, conversationID: conversation?.id, lastUpdate: now,
      message: message)
  }

  /// A conversation created by `creator` with `participants` (the creator included), a group
  /// named `Group N` unless told otherwise.
  public func conversation(
    kind: Conversation.Kind = .group, name: String? = nil, creator: User,
    participants: [User] = []
  ) -> Conversation {
    Conversation(
      id: uuids.next(), kind: kind,
      name: name ?? (kind == .group ? "Group \(counter.next())" : nil), creatorID: creator.id,
      participantIDs: Set(participants.map(\.id) + [creator.id]), lastEventTime: now)
  }

  /// A pending message from `sender` in `conversation`, one second after the previous one.
  public func message(
    in conversation: Conversation, from sender: User, text: String = "Hello",
    deliveryState: Message.DeliveryState = .pending
  ) -> Message {
    Message(
      nonce: uuids.next(), conversationID: conversation.id, senderID: sender.id, text: text,
      localTime: now.addingTimeInterval(TimeInterval(counter.next())),
      deliveryState: deliveryState)
  }
}

/// A thread-safe counter for default names and times.
private final class Counter: Sendable {
  private let value = Locked(0)

  func next() -> Int {
    value.withLock { value in
      value += 1
      return value
    }
  }
}
