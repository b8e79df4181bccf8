import ConnectionParsing
import ConversationParsing
import CourierAPI
import FakeBackend
import Foundation
import Models
import ParsingCore
import Seams
import SyncStrategies
import Transport
import UserParsing

/// Runs generated steps against the real tracker, strategies, model stack and fake backend, and
/// checks the promise after every step against a small reference model.
///
/// The reference model is what the test itself remembers: the requests it holds in flight, the
/// messages it wrote in order, and which were ever refused. ``ModelRun`` runs one seed's
/// sequence through it.
public final class UpstreamModel {
  let stack: InlineModelStack
  let upstream: UpstreamObjectSync
  let fake: FakeBackend
  let me: UUID
  private(set) var users: [UUID]
  private(set) var groups: [UUID]
  private(set) var conversations: [UUID]
  var inFlight: [UpstreamRequest] = []
  /// What the server answered to requests it applied before their answers were given.
  ///
  /// Each with the server's version once it had applied the request.
  private var delivered:
    [RequestToken: (answer: Result<EndpointResponse, APIError>, version: ServerVersion)] = [:]
  /// How the client is broken on purpose, if it is, to show a check catching it.
  let defect: ModelDefect?
  /// The names the server set, with their versions, and the newest each context showed.
  var names = NameOrderTrack()
  /// How often a context showed an older name that the client was sending again, which the
  /// older-value rule passes over.
  var shownWhileSentAgain = 0
  /// What the server applied for each key the model follows, and the rules its order states.
  private(set) var appliedChanges = AppliedChanges<SavedKey, SavedValue>()
  /// How many saves changed each key so far: a change's identity beside its value.
  private var editCounts: [SavedKey: Int] = [:]
  /// What each request in flight carries for the keys the model follows, with each key's edit
  /// count when it went.
  private var carried: [RequestToken: [(key: SavedKey, value: SavedValue, edits: Int)]] = [:]
  /// What each call carried when it first went, by its idempotency key: a call sent again
  /// carries the changes of the saves it was made for, not those the user made since, even
  /// where a later save set the same value.
  private var carriedByCall: [String: [(key: SavedKey, value: SavedValue, edits: Int)]] = [:]
  /// For each group creation in flight, how many values the backend may hold the group had
  /// before the creation went: an answer proving it was not applied must leave no more.
  private var uncertainBeforeCreation: [RequestToken: Int] = [:]
  /// For each object a request of which was answered 429, when its Retry-After ends: nothing
  /// for the object may go before then, unless the app retries its refused change.
  private var retryAfterEnds: [ObjectReference: Duration] = [:]
  /// A rule the last step broke while it ran (a record an unapplied creation left behind, a
  /// request sent before its object's Retry-After ended); the step's checks report it.
  var brokenRule: String?
  private(set) var written: [UUID: [UUID]] = [:]
  /// How many of each conversation's messages on the server the checks have read, and their
  /// nonces; the server only appends messages, except when the app gives up one it refused that
  /// an earlier attempt may have posted, so one seen there needs no further checking.
  var serverMessages: [UUID: ServerMessages] = [:]
  /// The messages of each conversation that the user wrote and saved and that the checks have
  /// not seen on the server yet, in the order written: those the pending rule looks at.
  var unseenWritten: [UUID: [UUID]] = [:]
  private(set) var everRefused: Set<UUID> = []
  /// Messages the user deleted (alone or with a group they left) or the app gave up (refused
  /// ones, and those dropped with a group whose refused creation it gave up): they are gone
  /// here and owe the server nothing.
  private(set) var givenUp: Set<UUID> = []
  /// The last value the user saved for each key the promise covers one by one, until the
  /// server is seen holding it or the app gives the object's refused change up.
  var lastSaved: [SavedKey: SavedValue] = [:]
  private var lastNotification: UUID?
  /// Where the notification cursor has stood in the self user's stream: it only moves forward.
  private var cursor = CursorTrack()
  /// Requests out while news dropped their group here and another member then added the self
  /// user back: the backend may apply one after the re-add, which only its news tell the client.
  private var outAcrossRejoin: Set<RequestToken> = []
  /// Groups such a request was answered for since the last pull: what the backend holds for
  /// them waits for the next news.
  private(set) var awaitingNews: Set<UUID> = []
  private(set) var now: Duration = .zero
  /// What the UI's edits not saved yet mean once saved, in the order they were made.
  private var unsaved: [UnsavedEffect] = []
  private var counter = 0
  private let downstream = DownstreamSync()
  /// The steps, each request handed out and how it was answered, and other devices' changes,
  /// in order, for reports.
  private(set) var trace: [TraceEntry] = []
  /// How many steps `run` was given.
  private var stepsRun = 0

  /// A key whose every saved value must reach the server or stay here.
  ///
  /// Names, the accent, a connection's status, and whether a user is in a group: member lists
  /// merge with other users' changes, so each member is followed alone, until another user
  /// changes that same member.
  enum SavedKey: Hashable, CustomStringConvertible {
    case selfName
    case accent
    case groupName(UUID)
    case connection(UUID)
    case member(UUID, group: UUID)

    var description: String {
      switch self {
      case .selfName: "self name"
      case .accent: "accent"
      case .groupName(let id): "name of group \(id)"
      case .connection(let user): "status of the connection with \(user)"
      case .member(let user, let group): "membership of \(user) in group \(group)"
      }
    }

    /// The key's value given the self user and the groups and connections that `conversation`
    /// and `connection` look up by id, or `nil` if its object is not there: the one reading of
    /// a key, for the UI at a save and for the sync context at a check.
    func value(
      selfUser: User?, conversation: (UUID) -> Conversation?, connection: (UUID) -> Connection?
    ) -> SavedValue? {
      switch self {
      case .selfName: selfUser.map { .name($0.name) }
      case .accent: selfUser.map { .accent($0.accentID) }
      case .groupName(let id): conversation(id).map { .name($0.name ?? "") }
      case .connection(let contact): connection(contact).map { .connection($0.status) }
      case .member(let member, let group):
        conversation(group).map { .member($0.participantIDs.contains(member)) }
      }
    }
  }

  /// The value of a ``SavedKey``, as the client or the server holds it.
  ///
  /// (The key reads it from objects with ``SavedKey/value(selfUser:conversation:connection:)``.)
  enum SavedValue: Hashable, CustomStringConvertible {
    /// A name; a group without one reads as empty.
    case name(String)
    case accent(Int)
    /// Whether the user is in the group.
    case member(Bool)
    case connection(Connection.Status)

    var description: String {
      switch self {
      case .name(let name): name
      case .accent(let accent): "\(accent)"
      case .member(let isIn): isIn ? "in" : "out"
      case .connection(let status): status.rawValue
      }
    }
  }

  /// What an edit the UI has not saved yet means for the model once a save takes it.
  enum UnsavedEffect {
    /// The user changed this key.
    case key(SavedKey)
    /// The user wrote this message.
    case wrote(UUID, conversation: UUID)
    /// The user left the group, deleting it and these messages here.
    case left(UUID, messages: [UUID])
    /// The user deleted their message.
    case deleted(UUID)
  }

  /// What the checks have read of one conversation's messages on the server.
  struct ServerMessages {
    var count = 0
    var nonces: Set<UUID> = []
    /// The nonce of the last message read, by which a deletion before it shows.
    var last: UUID?
  }

  /// A step, a request handed out, applied or answered, or another device's change; formatted
  /// only for a report.
  enum TraceEntry: CustomStringConvertible {
    /// The run's step `index` (counted from 1) began.
    case step(Int, ModelStep)
    case handedOut(Endpoint, idempotencyKey: String?)
    case answered(Endpoint, ModelStep.AnswerKind)
    case delivered(Endpoint)
    /// Another device or user changed the key on the server.
    case remote(SavedKey)

    var description: String {
      switch self {
      case .step(let index, let step): "\(index). \(step)"
      case .handedOut(let endpoint, let key?): "handed out \(endpoint) under \(key)"
      case .handedOut(let endpoint, nil): "handed out \(endpoint)"
      case .answered(let endpoint, let kind): "answered \(endpoint): \(kind)"
      case .delivered(let endpoint): "applied by the server \(endpoint)"
      case .remote(let key): "another device or user changed \(key)"
      }
    }
  }

  /// How long a 429 answer asks the client to wait.
  static let retryAfter: Duration = .seconds(5)

  /// The strategies of a real client, which a run uses unless it is given others.
  public static let standardStrategies: [any UpstreamStrategy] = [
    SelfUserStrategy(), ConnectionStrategy(), ConversationStrategy(), MessageStrategy(),
  ]

  /// A world with the self user, three connected contacts and two groups, all synchronised,
  /// pushed by `strategies`, whose new ids come from `uuids`.
  ///
  /// Every model starts from the same world, prepared once and copied: the backend with
  /// ``FakeBackend/copy(uuids:time:onUnmatched:)``, the stack opened on a store holding what the
  /// prepared one saved.
  init(
    uuids: UUIDSource, strategies: [any UpstreamStrategy] = standardStrategies,
    defect: ModelDefect? = nil
  ) throws {
    self.defect = defect
    let world = try Self.world.withLock { world in
      if let world { return world }
      let prepared = try Self.prepareWorld()
      world = prepared
      return prepared
    }
    fake = world.fake.copy(uuids: uuids)
    me = world.me
    stack = try InlineModelStack(
      store: InMemoryStore(state: world.stored), uuids: uuids, pagedObjectLimit: 0)
    upstream = UpstreamObjectSync(
      strategies: strategies, retryPolicy: RetryPolicy(baseDelay: .seconds(1), jitter: 0))
    users = world.users
    groups = world.groups
    conversations = world.conversations
    lastNotification = world.lastNotification
  }

  /// What every model starts from.
  struct World: Sendable {
    let fake: FakeBackend
    let stored: StoredState
    let me: UUID
    let users: [UUID]
    let groups: [UUID]
    let conversations: [UUID]
    let lastNotification: UUID?
  }

  /// The world, once prepared.
  private static let world = Locked<World?>(nil)

  /// Prepares the world on a backend and a stack of its own, with ids of its own.
  private static func prepareWorld() throws -> World {
    let uuids = UUIDSource.seeded(0)
    let fake = FakeBackend(uuids: uuids)
    let me = fake.insertSelfUser(name: "Me")
    let store = InMemoryStore()
    let stack = try InlineModelStack(store: store, uuids: uuids, pagedObjectLimit: 0)
    var users: [UUID] = []
    var groups: [UUID] = []
    var conversations: [UUID] = []
    for name in ["Ann", "Bob", "Cat"] {
      let user = fake.insertUser(name: name)
      users.append(user)
      if let conversation = fake.connectRemotely(with: user) { conversations.append(conversation) }
    }
    for (index, name) in ["Lunch", "Team"].enumerated() {
      let group = fake.createGroupRemotely(name: name, by: me, members: [users[index]])
      groups.append(group)
      conversations.append(group)
    }
    if case .success(.user(let selfUser)) = fake.answer(.getSelf) {
      stack.sync.applyRemote(PayloadMapping.user(selfUser, isSelf: true))
      try stack.sync.save()
    }
    var lastNotification: UUID?
    if case .success(.notifications(let page)) = fake.answer(
      .getNotifications(since: nil, size: 500))
    {
      lastNotification = DownstreamSync().apply(page, since: nil, in: stack.sync).lastID
      try stack.sync.save()
    }
    if case .success(.users(let found)) = fake.answer(.getUsers(ids: users)) {
      for user in found { stack.sync.applyRemote(PayloadMapping.user(user, isSelf: false)) }
      try stack.sync.save()
    }
    return World(
      fake: fake, stored: store.load(), me: me, users: users, groups: groups,
      conversations: conversations, lastNotification: lastNotification)
  }

  var ui: ModelContext { stack.ui }

  // MARK: - Generating

  /// The next step, drawn from `random` with the weights of a busy client on a bad network.
  func nextStep(_ random: inout SeededRandomNumberGenerator) -> ModelStep {
    counter += 1
    let roll = Int.random(in: 0..<100, using: &random)
    switch roll {
    case 0..<10: return .renameSelf("n\(counter)")
    case 10..<14: return .changeAccent(Int.random(in: 0..<8, using: &random))
    case 14..<20: return .renameGroup(Int.random(in: 0..<8, using: &random), "g\(counter)")
    case 20..<26:
      return .toggleMember(
        group: Int.random(in: 0..<8, using: &random), user: Int.random(in: 0..<3, using: &random))
    case 26..<35:
      return .write(conversation: Int.random(in: 0..<8, using: &random), text: "m\(counter)")
    case 35..<36: return .deleteMessage(conversation: Int.random(in: 0..<8, using: &random))
    case 36..<38: return .createGroup(members: [Int.random(in: 0..<3, using: &random)])
    case 38..<39: return .leaveGroup(Int.random(in: 0..<8, using: &random))
    // About three edits to a save: saves of several keys and objects, and edits the UI keeps
    // unsaved while the sync context's saves merge in.
    case 39..<51: return .save
    case 51..<64: return .handOut
    case 64..<68: return .deliver(Int.random(in: 0..<8, using: &random))
    case 68..<88:
      let kind: ModelStep.AnswerKind =
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<12: .success
        case 12..<14: .temporary
        case 14..<15: .tooMany
        case 15..<16: .permanent
        default: .lostResponse
        }
      return .answer(Int.random(in: 0..<8, using: &random), kind)
    case 88..<90: return .remoteRename(group: Int.random(in: 0..<8, using: &random), "r\(counter)")
    case 90..<91:
      let group = Int.random(in: 0..<8, using: &random)
      let user = Int.random(in: 0..<4, using: &random)
      return user == 3 ? .remoteToggleSelf(group: group) : .remoteMember(group: group, user: user)
    case 91..<93: return .remoteMessage(conversation: Int.random(in: 0..<8, using: &random))
    case 93..<94: return .remoteToggleBlock(user: Int.random(in: 0..<3, using: &random))
    case 94..<96: return .toggleBlock(user: Int.random(in: 0..<3, using: &random))
    case 96..<98: return .advance(.milliseconds(Int.random(in: 0...4_000, using: &random)))
    case 98..<99: return .discardFailed
    default: return .retryFailed
    }
  }

  // MARK: - Running

  /// Carries out `step`; returns `false` when it changed nothing the rules read (an edit the UI
  /// has not saved, no request to hand out or answer, no author for a remote change, only the
  /// clock moved), so the rules need no check.
  @discardableResult
  func run(_ step: ModelStep) throws -> Bool {
    stepsRun += 1
    trace.append(.step(stepsRun, step))
    switch step {
    case .renameSelf(let name):
      editUI(.key(.selfName)) { try $0.update(User.self, id: self.me) { $0.name = name } }
      return false
    case .changeAccent(let accent):
      editUI(.key(.accent)) { try $0.update(User.self, id: self.me) { $0.accentID = accent } }
      return false
    case .renameGroup(let index, let name):
      let group = groups[index % groups.count]
      editUI(.key(.groupName(group))) {
        try $0.update(Conversation.self, id: group) { $0.name = name }
      }
      return false
    case .toggleMember(let index, let user):
      let group = groups[index % groups.count]
      let member = users[user]
      editUI(.key(.member(member, group: group))) { context in
        try context.update(Conversation.self, id: group) { conversation in
          if conversation.participantIDs.remove(member) == nil {
            conversation.participantIDs.insert(member)
          }
        }
      }
      return false
    case .write(let index, let text):
      let conversation = conversations[index % conversations.count]
      let nonce = ui.makeID()
      counter += 1
      editUI(.wrote(nonce, conversation: conversation)) { context in
        try context.insert(
          Message(
            nonce: nonce, conversationID: conversation, senderID: self.me, text: text,
            localTime: Date(timeIntervalSince1970: 1_800_000_000 + Double(self.counter))))
      }
      return false
    case .createGroup(let members):
      let id = ui.makeID()
      let participants = Set(members.map { users[$0] } + [me])
      // Nothing to remember at the save: the model lists a new group at once.
      editUI(nil) { context in
        try context.insert(
          Conversation(
            id: id, kind: .group, name: "new", creatorID: self.me, participantIDs: participants,
            lastEventTime: Date(timeIntervalSince1970: 1_800_000_000)))
      }
      // Listed at once, so that later edits may find it; until saved it is only in the UI.
      groups.append(id)
      conversations.append(id)
      return false
    case .leaveGroup(let index):
      let group = groups[index % groups.count]
      let messages = ui.messages(inConversationWithID: group).map(\.id)
      editUI(.left(group, messages: messages)) { context in
        for message in messages { try context.delete(Message.self, id: message) }
        try context.delete(Conversation.self, id: group)
      }
      return false
    case .deleteMessage(let index):
      let conversation = conversations[index % conversations.count]
      let mine = (written[conversation] ?? []).filter { ui.object(Message.self, id: $0) != nil }
      guard let latest = mine.last else { return false }
      editUI(.deleted(latest)) { try $0.delete(Message.self, id: latest) }
      return false
    case .save:
      return saveUI()
    case .handOut:
      let uncertain = stack.sync.localChanges(of: Conversation.self).unconfirmed
      guard let request = upstream.nextRequest(in: stack.sync, now: now) else { return false }
      if request.item.kind == .insert, request.item.object.entity == Conversation.entityName {
        uncertainBeforeCreation[request.token] = uncertain[request.item.object.id]?.count ?? 0
      }
      if let end = retryAfterEnds[request.item.object], now < end {
        brokenRule =
          "\(request.item.object) was sent at \(now), before its Retry-After ended at \(end)"
      }
      inFlight.append(request)
      let changes =
        request.idempotencyKey.flatMap { carriedByCall[$0] }
        ?? carriedChanges(request.endpoint).map { ($0.key, $0.value, editCounts[$0.key] ?? 0) }
      carried[request.token] = changes
      if let key = request.idempotencyKey { carriedByCall[key] = changes }
      trace.append(.handedOut(request.endpoint, idempotencyKey: request.idempotencyKey))
    case .answer(let index, let kind):
      guard !inFlight.isEmpty else { return false }
      let request = inFlight.remove(at: index % inFlight.count)
      let before = uncertainBeforeCreation.removeValue(forKey: request.token)
      noteAnswerAcrossRejoin(request)
      let applied = answer(request, kind)
      try stack.sync.save()
      let id = request.item.object.id
      if !applied, let before,
        let after = stack.sync.localChanges(of: Conversation.self).unconfirmed[id]?.count,
        after > before
      {
        brokenRule =
          "group \(id) has \(after) values the backend may hold after a creation it did not apply, \(before) before it went"
      }
    case .deliver(let index):
      let waiting = inFlight.filter { delivered[$0.token] == nil }
      guard !waiting.isEmpty else { return false }
      let request = waiting[index % waiting.count]
      delivered[request.token] = serverApplies(request)
      trace.append(.delivered(request.endpoint))
      // Applied after the re-add of its group, the request changed what the backend holds in
      // a way only its news tell the client (a rename dropped with the group, say).
      if outAcrossRejoin.contains(request.token) { awaitingNews.insert(request.item.object.id) }
    case .remoteRename(let index, let name):
      let group = groups[index % groups.count]
      guard let author = fake.members(of: group).first(where: { $0 != me }) else { return false }
      fake.renameRemotely(group, to: name, by: author)
      remoteApplied(.groupName(group))
      try pull()
    case .remoteMember(let index, let user):
      let group = groups[index % groups.count]
      let member = users[user]
      let members = fake.members(of: group)
      guard let author = members.first(where: { $0 != me && $0 != member }) else { return false }
      if members.contains(member) {
        fake.removeMembersRemotely([member], from: group, by: author)
      } else {
        fake.addMembersRemotely([member], to: group, by: author)
      }
      // Which of the two changes of that member came last, the backend's order says.
      lastSaved[.member(member, group: group)] = nil
      remoteApplied(.member(member, group: group))
      try pull()
    case .remoteToggleSelf(let index):
      let group = groups[index % groups.count]
      let members = fake.members(of: group)
      guard let author = members.first(where: { $0 != me }) else { return false }
      if members.contains(me) {
        fake.removeMembersRemotely([me], from: group, by: author)
      } else {
        fake.addMembersRemotely([me], to: group, by: author)
        outAcrossRejoin.formUnion(
          inFlight.filter { $0.item.object.id == group }.map(\.token))
      }
      remoteApplied(.member(me, group: group))
      try pull()
    case .remoteMessage(let index):
      let conversation = conversations[index % conversations.count]
      guard let author = fake.members(of: conversation).first(where: { $0 != me }) else {
        return false
      }
      fake.postMessageRemotely(in: conversation, from: author, text: "remote")
      try pull()
    case .toggleBlock(let index):
      let user = users[index]
      editUI(.key(.connection(user))) { context in
        try context.update(Connection.self, id: user) { connection in
          connection.status = connection.status == .blocked ? .accepted : .blocked
        }
      }
      return false
    case .remoteToggleBlock(let index):
      let user = users[index]
      guard let current = fake.connection(from: me, to: user)?.status else { return false }
      let next: ConnectionStatus = current == .blocked ? .accepted : .blocked
      _ = fake.answer(.updateConnection(user: user, ConnectionUpdate(status: next)))
      remoteApplied(.connection(user))
      try pull()
    case .advance(let duration):
      now += duration
      return false
    case .retryFailed:
      try retryFailed()
    case .discardFailed:
      try discardFailed()
    }
    return true
  }

  /// Makes `edit` in the UI context without saving it.
  ///
  /// The next save gives it `effect`, if any; an edit the context refuses (of an object that is
  /// not there) changes nothing.
  private func editUI(_ effect: UnsavedEffect?, _ edit: (ModelContext) throws -> Void) {
    do {
      try edit(ui)
      if let effect { unsaved.append(effect) }
    } catch {
      // The context refuses an edit before making it: nothing to undo.
    }
  }

  /// Saves the UI context's edits and applies their effects to what the model remembers.
  ///
  /// Returns whether the save changed anything. A save the context refuses (a message whose
  /// conversation news dropped meanwhile) rolls every unsaved edit back, and they have no effect.
  private func saveUI() -> Bool {
    defer { unsaved = [] }
    // A save that leaves a key as the context last held it (a member toggled out and in again)
    // is no edit of it.
    var before: [SavedKey: SavedValue] = [:]
    for case .key(let key) in unsaved {
      before[key] = key.value(
        selfUser: ui.savedObject(User.self, id: me),
        conversation: { self.ui.savedObject(Conversation.self, id: $0) },
        connection: { self.ui.savedObject(Connection.self, id: $0) })
    }
    let changes: ChangeSet
    do {
      changes = try ui.save()
    } catch {
      ui.rollback()
      return false
    }
    guard !changes.isEmpty else { return false }
    let users = changes[User.self]
    let connections = changes[Connection.self]
    let groups = changes[Conversation.self]
    let messages = changes[Message.self]
    // What the save made or changed of an object; a deletion in the same save wins.
    func saved<Object>(_ id: UUID, in entity: EntityChanges<Object>) -> Bool {
      entity.updated[id] != nil || entity.inserted[id] != nil
    }
    for effect in unsaved {
      switch effect {
      case .key(let key):
        let touched =
          switch key {
          case .selfName, .accent: saved(me, in: users)
          case .groupName(let group), .member(_, let group): saved(group, in: groups)
          case .connection(let user): saved(user, in: connections)
          }
        if touched, let value = value(of: key, in: ui), before[key] != value {
          lastSaved[key] = value
          editCounts[key, default: 0] += 1
        }
      case .wrote(let nonce, let conversation):
        if messages.inserted[nonce] != nil {
          written[conversation, default: []].append(nonce)
          unseenWritten[conversation, default: []].append(nonce)
        }
      case .left(let group, let gone):
        guard groups.deleted.contains(group) else { continue }
        givenUp.formUnion(gone)
        // Leaving gives up a rename or member change not sent yet: should another member add
        // the self user back, the group returns as the server has it.
        for key in savedKeys(of: ObjectReference(Conversation.entityName, group)) {
          lastSaved[key] = nil
        }
        // The leave is a change of the self user's membership, counted for the server's order
        // and not followed, since another member may add them back.
        editCounts[.member(me, group: group), default: 0] += 1
      case .deleted(let nonce):
        if messages.deleted.contains(nonce) { givenUp.insert(nonce) }
      }
    }
    return true
  }

  /// The value of `key` in `context`, if the object is there.
  private func value(of key: SavedKey, in context: ModelContext) -> SavedValue? {
    key.value(
      selfUser: context.object(User.self, id: me),
      conversation: { context.object(Conversation.self, id: $0) },
      connection: { context.object(Connection.self, id: $0) })
  }

  /// Completes `request` as `kind` says in the sync context; save it after.
  ///
  /// Returns `false` when the answer proves the backend did not apply the request: a 429, or a
  /// 400 the model made up (the server never saw the request).
  @discardableResult
  private func answer(_ request: UpstreamRequest, _ kind: ModelStep.AnswerKind) -> Bool {
    let outcome: UpstreamOutcome
    var applied = true
    switch kind {
    case .success, .lostResponse:
      let (answer, version) =
        delivered.removeValue(forKey: request.token) ?? serverApplies(request)
      if kind == .lostResponse {
        outcome = .temporary(
          BackendFailure(responseClass: .temporary, transportError: .network(.connectionLost)))
      } else {
        switch answer {
        case .success(let response):
          outcome = .success(response, version: request.endpoint.changesState ? version : nil)
        case .failure(let error):
          outcome = .permanent(
            BackendFailure(responseClass: .permanent, status: error.code, error: error))
        }
      }
    // The server already applied a delivered request: it cannot answer 503, 429 or 400 any
    // more, so a temporary failure is the answer lost on the way, and a permanent one its real
    // answer.
    case .temporary where delivered.removeValue(forKey: request.token) != nil,
      .tooMany where delivered.removeValue(forKey: request.token) != nil:
      outcome = .temporary(
        BackendFailure(responseClass: .temporary, transportError: .network(.connectionLost)))
    case .permanent where delivered[request.token] != nil:
      return answer(request, .success)
    // Nor can it refuse a repeat of a key it answered before (an earlier attempt whose answer
    // was lost): a repeat gets the first answer.
    case .permanent
    where request.idempotencyKey.map { fake.hasAnswered(idempotencyKey: $0) } ?? false:
      return answer(request, .success)
    // This backend answers a leave with 204, or 404 for a group it does not hold: a made-up
    // refusal of one would stand for no backend there is (a refused leave given up brings the
    // group back as last known, which may not be what the backend holds; see the README).
    case .permanent where isLeave(request.endpoint):
      return answer(request, .success)
    // Nor does it refuse to delete a message it no longer holds (an earlier attempt, its answer
    // lost, deleted it): it answers 404, which settles the deletion. A made-up refusal would
    // bring the message back here as sent.
    case .permanent where isDeletionOfMessageGone(request.endpoint):
      return answer(request, .success)
    case .temporary:
      outcome = .temporary(BackendFailure(responseClass: .temporary, status: 503))
    case .tooMany:
      outcome = .temporary(
        BackendFailure(
          responseClass: .temporary, status: 429, retryAfter: Self.retryAfter))
      applied = false
      let end = now + Self.retryAfter
      retryAfterEnds[request.item.object] = max(retryAfterEnds[request.item.object] ?? end, end)
    case .permanent:
      outcome = .permanent(BackendFailure(responseClass: .permanent, status: 400))
      applied = false
    }
    if case .permanent = outcome { everRefused.insert(request.item.object.id) }
    trace.append(.answered(request.endpoint, kind))
    upstream.complete(request.token, with: outcome, in: stack.sync, now: now)
    return applied
  }

  /// Records that another device or user changed `key` on the server.
  private func remoteApplied(_ key: SavedKey) {
    appliedChanges.remoteApplied(key)
    trace.append(.remote(key))
  }

  /// Lets the server apply `request`: its answer, and the server's version after it.
  ///
  /// What it changed of the keys the model follows is checked against what the server applied
  /// before.
  private func serverApplies(_ request: UpstreamRequest) -> (
    answer: Result<EndpointResponse, APIError>, version: ServerVersion
  ) {
    let (answer, version, isRepeat) = fake.answer(
      request.endpoint,
      idempotencyKey: defect == .dropsIdempotencyKeys ? nil : request.idempotencyKey)
    if case .success = answer, !isRepeat {
      for change in carried[request.token] ?? [] {
        let broken = appliedChanges.clientApplied(change.key, change.value, edits: change.edits)
        if brokenRule == nil, let broken { brokenRule = broken.description }
      }
    }
    return (answer, version)
  }

  /// The values `endpoint` sets for the keys the model follows.
  private func carriedChanges(_ endpoint: Endpoint) -> [(key: SavedKey, value: SavedValue)] {
    switch endpoint {
    case .updateSelf(let update):
      return (update.name.map { [(SavedKey.selfName, SavedValue.name($0))] } ?? [])
        + (update.accentID.map { [(SavedKey.accent, SavedValue.accent($0))] } ?? [])
    case .renameConversation(let id, let rename):
      return [(.groupName(id), .name(rename.name))]
    case .updateConnection(let user, let update):
      return [
        (.connection(user), .connection(Connection.Status(backendValue: update.status.rawValue)))
      ]
    case .addMembers(let id, let list):
      return list.users.filter { $0 != me }.map { (.member($0, group: id), .member(true)) }
    case .removeMembers(let id, let list):
      // The self user among them is a leave.
      return list.users.map { (.member($0, group: id), .member(false)) }
    default:
      return []
    }
  }

  /// Whether `endpoint` deletes a message the server does not hold (any more).
  private func isDeletionOfMessageGone(_ endpoint: Endpoint) -> Bool {
    guard case .deleteMessage(let conversation, let nonce) = endpoint else { return false }
    return !fake.messages(in: conversation).contains { $0.nonce == nonce }
  }

  /// Whether `endpoint` is the self user leaving a group.
  private func isLeave(_ endpoint: Endpoint) -> Bool {
    if case .removeMembers(_, let list) = endpoint { return list.users == [me] }
    return false
  }

  /// Sends again every change the backend refused: the model knows every object that can have
  /// one, so it asks their change-log records instead of working out the whole queue.
  private func retryFailed() throws {
    try forEachRefusal { reference in
      upstream.retryFailedChange(of: reference, in: stack.sync)
      retryAfterEnds[reference] = nil
    }
  }

  /// Gives up every refused change, as an app whose user dismisses them does; the object's
  /// backoff stays, since other changes of it may still wait.
  private func discardFailed() throws {
    try forEachRefusal { object in
      upstream.discardFailedChange(of: object, in: stack.sync)
      for key in savedKeys(of: object) { lastSaved[key] = nil }
    }
    for nonce in written.values.joined() where stack.sync.object(Message.self, id: nonce) == nil {
      givenUp.insert(nonce)
    }
  }

  /// The keys of `object` whose last saved value the model follows.
  func savedKeys(of object: ObjectReference) -> [SavedKey] {
    switch object.entity {
    case .user: [.selfName, .accent]
    case .conversation: [.groupName(object.id)] + users.map { .member($0, group: object.id) }
    case .connection: [.connection(object.id)]
    default: []
    }
  }

  /// Calls `body` with every object the model knows whose change was refused, then saves.
  private func forEachRefusal(_ body: (ObjectReference) -> Void) throws {
    let context = stack.sync
    func visit<Object: ModelObject>(_ type: Object.Type, _ ids: some Sequence<UUID>) {
      let changes = context.localChanges(of: type)
      for id in ids where changes.failure(of: id) != nil {
        body(ObjectReference(Object.entityName, id))
      }
    }
    visit(User.self, [me])
    visit(Connection.self, users)
    visit(Conversation.self, groups)
    visit(Message.self, written.values.joined())
    try context.save()
  }

  /// Notes that the notification cursor stands at `id` in the self user's stream: a cursor that
  /// moved back breaks a rule, which the next check reports.
  func noteCursor(at id: UUID) {
    guard brokenRule == nil, let broken = cursor.move(to: id, in: fake.notifications) else {
      return
    }
    brokenRule = broken
  }

  /// Applies every notification the backend has for the self user since the last pull.
  private func pull() throws {
    guard
      case .success(.notifications(var page)) = fake.answer(
        .getNotifications(since: defect == .readsNewsBackwards ? nil : lastNotification, size: 500))
    else { return }
    if defect == .readsNewsBackwards {
      page = Page(elements: page.elements.reversed(), failures: page.failures, hasMore: false)
    }
    let applied = downstream.apply(page, since: lastNotification, in: stack.sync)
    try stack.sync.save()
    lastNotification = applied.lastID
    if let id = applied.lastID { noteCursor(at: id) }
    awaitingNews = []
    // What the app is told it lost with a group the self user was removed from owes the server
    // nothing; anything else gone here unsent is a loss the checks report.
    for dropped in applied.droppedChanges {
      switch dropped.item.object.entity {
      case .message: givenUp.insert(dropped.item.object.id)
      case .conversation:
        for key in savedKeys(of: dropped.item.object) { lastSaved[key] = nil }
      default: continue
      }
    }
  }

  /// Leaves `request`'s group for the news if the request was out across the group's drop and
  /// re-add, since it is answered now.
  private func noteAnswerAcrossRejoin(_ request: UpstreamRequest) {
    if outAcrossRejoin.remove(request.token) != nil { awaitingNews.insert(request.item.object.id) }
  }

  /// Pulls the news once more if a request that was out across its group's drop and re-add
  /// was answered since the last pull: the backend may have applied it after the re-add, and
  /// only the news say which came last.
  private func readNewsAwaited() throws {
    if !awaitingNews.isEmpty { try pull() }
  }

  /// Answers every request with success until nothing is left to send: faults stopped, the
  /// network up, refused changes retried.
  func drain() throws {
    // The user's edits are saved before the network comes back for good.
    _ = saveUI()
    try retryFailed()
    for _ in 0..<10_000 {
      // One save for all the answers, as the engine applies the answers that arrived together.
      for request in inFlight {
        noteAnswerAcrossRejoin(request)
        answer(request, .success)
      }
      try stack.sync.save()
      inFlight = []
      now += .seconds(3_600)
      var next: [UpstreamRequest] = []
      while let request = upstream.nextRequest(in: stack.sync, now: now) {
        next.append(request)
        trace.append(.handedOut(request.endpoint, idempotencyKey: request.idempotencyKey))
      }
      if next.isEmpty {
        try readNewsAwaited()
        return
      }
      inFlight = next
    }
  }
}
