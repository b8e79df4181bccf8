import Foundation
import Models
import SyncEngine
import SyncStrategies

/// A terminal chat client's state and commands: which conversation is open, what it shows, and
/// what each typed command does to the UI context and the engine.
///
/// It reads and edits only the UI context, as an app's screens do; the engine sends what was
/// saved and merges what the backend says. Messages from others are announced once each as they
/// arrive.
@MainActor
public final class ChatClient {
  private let stack: ModelStack
  private let engine: SyncEngine
  private let write: @MainActor (String) -> Void
  private var ui: ModelContext { stack.ui.context }
  /// The conversation messages go to, once one is open.
  public private(set) var openConversationID: UUID?
  /// The conversations as last listed, so that `/open 2` means what the user saw.
  private var listed: [UUID] = []
  /// The messages already shown or announced.
  private var announced: Set<UUID> = []
  /// Whether the client talks to the backend.
  public private(set) var isOnline = true

  /// Creates a client on `stack` synchronised by `engine`; every line it shows goes to `write`.
  public init(stack: ModelStack, engine: SyncEngine, write: @escaping @MainActor (String) -> Void) {
    self.stack = stack
    self.engine = engine
    self.write = write
  }

  /// The signed-in user, once the engine fetched it.
  public var me: User? { ui.objects(User.self).first(where: \.isSelf) }

  /// Starts announcing arrivals and starts the engine, which sends what was left unsent when
  /// the client last stopped.
  public func start() async {
    announced = Set(ui.objects(Message.self).map(\.nonce))
    let changes = ui.changes()
    Task { [weak self] in
      for await _ in changes {
        guard let self else { return }
        self.announceArrivals()
      }
    }
    await engine.start()
  }

  /// Reads the backend's news, when online.
  public func pull() async {
    guard isOnline else { return }
    await engine.pullNotifications()
  }

  /// Does what `command` asks, and returns whether the client goes on.
  public func perform(_ command: ChatCommand) async -> Bool {
    do {
      switch command {
      case .say(let text): try say(text)
      case .list: list()
      case .open(let name): try open(name)
      case .show: try show()
      case .group(let name, let handles): try createGroup(name, handles)
      case .rename(let name): try rename(name)
      case .add(let handle): try add(handle)
      case .offline:
        isOnline = false
        await engine.setOnline(false)
        write("offline: changes wait until /online")
      case .online:
        isOnline = true
        await engine.setOnline(true)
        write("online")
        await engine.pullNotifications()
      case .queue: describe(await engine.queue())
      case .help: write(ChatCommand.usage)
      case .quit: return false
      }
    } catch {
      write("\(error)")
    }
    return true
  }

  // MARK: - Commands

  private func say(_ text: String) throws {
    let (me, conversation) = try (signedIn(), openConversation())
    let message = Message(
      nonce: ui.makeID(), conversationID: conversation.id, senderID: me.id, text: text,
      localTime: Date())
    try ui.insert(message)
    try ui.save()
    announced.insert(message.nonce)
  }

  private func list() {
    let conversations = ui.objects(Conversation.self)
      .filter { $0.kind != .connection }
      .sorted { ($0.lastEventTime, $0.id.uuidString) > ($1.lastEventTime, $1.id.uuidString) }
    listed = conversations.map(\.id)
    if conversations.isEmpty { write("no conversations yet") }
    for (index, conversation) in conversations.enumerated() {
      let marker = conversation.id == openConversationID ? "*" : " "
      write(
        "\(marker)\(index + 1). \(title(of: conversation)) (\(conversation.participantIDs.count) members)"
      )
    }
  }

  private func open(_ name: String) throws {
    let conversations = ui.objects(Conversation.self).filter { $0.kind != .connection }
    let chosen: Conversation?
    if let number = Int(name), listed.indices.contains(number - 1) {
      chosen = ui.object(Conversation.self, id: listed[number - 1])
    } else {
      chosen = conversations.first { title(of: $0).lowercased() == name.lowercased() }
    }
    guard let chosen else { throw ChatError("no conversation '\(name)'; /list shows them") }
    openConversationID = chosen.id
    write("open: \(title(of: chosen))")
  }

  private func show() throws {
    let conversation = try openConversation()
    write("== \(title(of: conversation))")
    for message in messages(in: conversation.id) {
      write("\(sender(of: message)): \(message.text) (\(message.deliveryState.rawValue))")
    }
  }

  private func createGroup(_ name: String, _ handles: [String]) throws {
    let me = try signedIn()
    let members = try handles.map(user(handle:))
    let group = Conversation(
      id: ui.makeID(), kind: .group, name: name, creatorID: me.id,
      participantIDs: Set([me.id] + members.map(\.id)), lastEventTime: Date())
    try ui.insert(group)
    try ui.save()
    openConversationID = group.id
    write("open: \(name)")
  }

  private func rename(_ name: String) throws {
    let conversation = try openConversation()
    guard conversation.kind == .group else { throw ChatError("only a group can be renamed") }
    try ui.update(Conversation.self, id: conversation.id) { $0.name = name }
    try ui.save()
  }

  private func add(_ handle: String) throws {
    let conversation = try openConversation()
    guard conversation.kind == .group else { throw ChatError("only a group takes members") }
    let member = try user(handle: handle)
    try ui.update(Conversation.self, id: conversation.id) { $0.participantIDs.insert(member.id) }
    try ui.save()
  }

  /// Writes the queue's counts, then each change that is not simply pending, with what it
  /// waits for or why it failed.
  private func describe(_ queue: SyncQueueSnapshot) {
    write("queue: \(queue)")
    for item in queue.pending { write("  pending: \(item)") }
    for item in queue.inFlight { write("  in flight: \(item)") }
    for blocked in queue.blocked {
      let waits = blocked.waitingFor.map(String.init(describing:)).joined(separator: ", ")
      write("  blocked: \(blocked.item) waits for \(waits)\(blocked.isCycle ? " (a cycle)" : "")")
    }
    for waiting in queue.waitingOnFailure {
      write(
        "  waiting: \(waiting.item) needs \(waiting.failedObject), which failed: \(waiting.reason)")
    }
    for retrying in queue.retrying {
      write("  retrying: \(retrying.item) after \(retrying.failedAttempts) failed attempts")
    }
    for failure in queue.failed {
      let status = failure.status.map { " (\($0))" } ?? ""
      write("  failed: \(failure.object)\(status): \(failure.reason)")
    }
  }

  // MARK: - Reading

  /// The messages of a conversation in the server's order; those not sent yet last, in the
  /// order they were written.
  public func messages(in conversationID: UUID) -> [Message] {
    ui.messages(inConversationWithID: conversationID).sorted {
      ($0.serverTime ?? .distantFuture, $0.localTime, $0.nonce.uuidString)
        < ($1.serverTime ?? .distantFuture, $1.localTime, $1.nonce.uuidString)
    }
  }

  /// Announces each message from someone else not shown yet, in the server's order.
  private func announceArrivals() {
    let me = self.me?.id
    let fresh = ui.objects(Message.self).filter { !announced.contains($0.nonce) }
      .sorted { ($0.serverTime ?? .distantFuture) < ($1.serverTime ?? .distantFuture) }
    for message in fresh {
      announced.insert(message.nonce)
      guard message.senderID != me else { continue }
      let place = ui.object(Conversation.self, id: message.conversationID).map(title(of:)) ?? "?"
      write("[\(place)] \(sender(of: message)): \(message.text)")
    }
  }

  private func title(of conversation: Conversation) -> String {
    if let name = conversation.name, conversation.kind == .group { return name }
    let others = conversation.participantIDs.filter { $0 != me?.id }
      .compactMap { ui.object(User.self, id: $0) }.map { $0.handle ?? $0.name }.sorted()
    return others.isEmpty ? (conversation.name ?? "(nobody)") : others.joined(separator: ", ")
  }

  private func sender(of message: Message) -> String {
    guard let user = ui.object(User.self, id: message.senderID) else { return "?" }
    return user.handle ?? user.name
  }

  private func signedIn() throws -> User {
    guard let me else { throw ChatError("not signed in yet: the backend has not answered") }
    return me
  }

  private func openConversation() throws -> Conversation {
    guard let id = openConversationID, let conversation = ui.object(Conversation.self, id: id)
    else { throw ChatError("no conversation is open; /list, then /open N") }
    return conversation
  }

  private func user(handle: String) throws -> User {
    guard let user = ui.objects(User.self).first(where: { $0.handle == handle }) else {
      throw ChatError("no user '\(handle)' among your contacts")
    }
    return user
  }
}

/// A command that could not be carried out, with the reason in words.
struct ChatError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
