import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport
import UserParsing

@Suite(
  "SyncEngine", .tags(.sync), .courier(timeBudget: .seconds(10), settleTimeout: .seconds(2)))
@MainActor
struct SyncEngineTests {
  @Test("Starting fetches the self user into the UI context and settles with nothing queued")
  func start() async throws {
    // when
    let world = try await SyncWorld.start()

    // then
    #expect(world.ui.selfUser?.id == world.me)
    #expect(world.ui.selfUser?.name == "Me")
    #expect(await world.engine.queue().isEmpty)
    #expect(world.fake.journal.map(\.route) == [.getSelf, .getNotifications])
  }

  /// A world whose backend refuses `GET /self` (until its faults are removed) and holds news of
  /// a group that names the self user.
  static func startRefusingSelfUser() async throws -> SyncWorld {
    try await SyncWorld.start { fake, _ in
      fake.addFault(.always(RequestMatcher("GET", "/self"), .status(403)))
      let contact = fake.insertUser(name: "Ann")
      fake.createGroupRemotely(name: "Team", by: contact, members: [contact])
    }
  }

  @Test(
    "A self user the backend did not return at start is known as the self user once it does, though news name them"
  )
  func selfUserAfterFailedFetch() async throws {
    // given: GET /self refused for a while at start, and news of a group naming the self user
    expectLoggedError(containing: "GET /self")
    let world = try await Self.startRefusingSelfUser()
    world.fake.removeFaults()

    // when: the app starts the engine again, as at its next launch
    await world.engine.start()
    await world.settle()

    // then: the self user is the self user, and the news are applied
    #expect(world.ui.selfUser?.id == world.me)
    #expect(world.ui.objects(Conversation.self).contains { $0.name == "Team" })
  }

  @Test("No news is applied before the backend says who the self user is; the pull asks first")
  func noNewsWithoutSelfUser() async throws {
    // given: GET /self refused, and news of a group naming the self user
    expectLoggedError(containing: "GET /self")

    // when
    let world = try await Self.startRefusingSelfUser()

    // then: the start's fetch and the pull's, and nothing read relative to an unknown self user
    #expect(world.fake.journal.map(\.route) == [.getSelf, .getSelf])
    #expect(world.ui.objects(Conversation.self).isEmpty)
    #expect(world.ui.objects(User.self).isEmpty)
  }

  @Test("A profile change is pushed once with exactly the changed key")
  func profileChange() async throws {
    // given
    let world = try await SyncWorld.start()

    // when
    try world.save { try $0.update(User.self, id: world.me) { $0.accentID = 4 } }
    await world.settle()

    // then
    #expect(world.fake.requests("PUT", "/self").map { $0.request.json } == [["accent_id": 4]])
    #expect(world.fake.user(world.me)?.accentID == 4)
  }

  @Test("Every send is a tracked job: the engine is busy until the response is applied")
  func tracked() async throws {
    // given
    let world = try await SyncWorld.start()
    world.fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))

    // when
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Parked" } }
    await world.fake.waitForParkedRequests(1)
    let jobs = world.stack.tracker.outstandingJobs.map(\.label)
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then
    #expect(jobs.contains("send PUT /self"))
    #expect(world.stack.tracker.isIdle)
  }

  @Test("Stopped, the engine sends nothing; started again, it drains what accumulated")
  func stopAndStart() async throws {
    // given
    let world = try await SyncWorld.start()
    await world.engine.stop()

    // when
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Later" } }
    await world.settle()
    let whileStopped = world.fake.requests("PUT", "/self").count
    await world.engine.start()
    await world.settle()

    // then
    #expect(whileStopped == 0)
    #expect(world.fake.user(world.me)?.name == "Later")
  }

  @Test("Told it is offline, the engine lets changes accumulate; back online it sends them")
  func offlineSwitch() async throws {
    // given
    let world = try await SyncWorld.start()
    await world.engine.setOnline(false)

    // when
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Queued" } }
    await world.settle(allowing: .engineOffline)
    let queued = await world.engine.queue()
    await world.engine.setOnline(true)
    await world.settle()

    // then
    #expect(queued.pending.map(\.object) == [ObjectReference(.user, world.me)])
    #expect(world.fake.user(world.me)?.name == "Queued")
  }

  @Test(
    "A pull that failed for want of a network is made up once the app says the network is back")
  func pullOwedWhileOffline() async throws {
    // given: Ann adds the self user to a group while the network is gone, and the app's pull
    // on its push fails
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [])
    world.fake.network = .offline
    await world.engine.pullNotifications()
    await world.settle()
    let offline = await world.engine.isOnline == false
    world.fake.network = .online

    // when
    await world.engine.setOnline(true)
    await world.settle()

    // then
    #expect(offline)
    #expect(world.ui.object(Conversation.self, id: group)?.name == "Lunch")
  }

  /// How an engine may come online owing no pull it can make now.
  enum NothingToPull: String, CaseIterable, CustomTestStringConvertible {
    /// Its last pull read to the end while it was offline.
    case readToTheEnd = "after a pull that read to the end"
    /// A pull failed for want of a network, then the app stopped the engine, whose next start
    /// pulls anyway.
    case stopped = "stopped, owing a pull"

    var testDescription: String { rawValue }
  }

  @Test(
    "Back online, an engine that owes no pull, or is stopped, sends no request for news",
    arguments: NothingToPull.allCases)
  func noPullWhenOnline(case nothing: NothingToPull) async throws {
    // given
    let world = try await SyncWorld.start()
    switch nothing {
    case .readToTheEnd:
      await world.engine.setOnline(false)
      await world.engine.pullNotifications()
    case .stopped:
      world.fake.network = .offline
      await world.engine.pullNotifications()
      world.fake.network = .online
      await world.engine.stop()
    }
    await world.settle()
    let pulls = world.fake.requests("GET", "/notifications").count

    // when
    await world.engine.setOnline(true)
    await world.settle()

    // then
    #expect(world.fake.requests("GET", "/notifications").count == pulls)
  }

  @Test("An offline transport error takes the engine offline and says so")
  func detectsOffline() async throws {
    // given
    let events = Recorder<SyncEngineEvent>()
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock)
    let me = fake.insertSelfUser()
    let stack = ModelStack.forTesting()
    let engine = SyncEngine(
      stack: stack, transport: fake.transport, time: clock, onEvent: events.record)
    await engine.start()
    await expectSettled(stack.tracker)
    fake.network = .offline

    // when
    try stack.ui.context.update(User.self, id: me) { $0.name = "Offline" }
    try stack.ui.context.save()
    await expectSettled(stack.tracker)

    // then
    #expect(await engine.isOnline == false)
    #expect(events.elements.contains(.connectivity(online: false)))
    #expect(
      events.elements.contains {
        $0.description == "PUT /self → network failure: offline"
      })
  }

  @Test("A 503 is retried after the backoff on the engine's clock")
  func retryAfterBackoff() async throws {
    // given
    let world = try await SyncWorld.start()
    world.fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(503)))
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Retried" } }
    await world.clock.waitForSleepers(1)

    // when
    let waiting = await world.engine.queue()
    world.clock.advance(by: .seconds(1))
    await world.settle()

    // then
    #expect(waiting.retrying.map(\.failedAttempts) == [1])
    #expect(world.fake.requests("PUT", "/self").map(\.status) == [503, 200])
    #expect(world.fake.user(world.me)?.name == "Retried")
  }

  @Test("A message posted remotely arrives in the UI context, with its unknown sender fetched")
  func remoteMessage() async throws {
    // given
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    let group = world.fake.createGroupRemotely(name: "G", by: ann, members: [])

    // when
    world.fake.postMessageRemotely(in: group, from: ann, text: "Hello from Ann")
    await world.engine.pullNotifications()
    await world.settle()

    // then
    let conversation = try #require(world.ui.object(Conversation.self, id: group))
    #expect(world.ui.messages(in: conversation).map(\.text) == ["Hello from Ann"])
    #expect(world.ui.object(User.self, id: ann)?.name == "Ann")
    #expect(world.fake.requests("GET", "/users").count == 1)
  }

  @Test(
    "A contact fetched by two overlapping pulls ends under the later fetch's name, whichever answer comes last",
    arguments: [true, false])
  func overlappingUserFetches(olderAnswerLast: Bool) async throws {
    // given: Ann, not known here, connects; the answer to the pull's fetch of her is held on
    // its way back while she renames herself and a later pull fetches her again, held too
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    world.fake.requestConnectionRemotely(from: ann)
    try await world.call(.updateConnection(user: ann, ConnectionUpdate(status: .accepted)))
    for _ in 0..<2 { world.fake.addFault(.once(RequestMatcher("GET", "/users"), .holdAnswer)) }
    let firstPull = Task { await world.engine.pullNotifications() }
    await world.fake.waitForParkedRequests(1)
    world.fake.renameUserRemotely(ann, to: "Annie")
    let secondPull = Task { await world.engine.pullNotifications() }
    await world.fake.waitForParkedRequests(2)
    let (older, newer) = (world.fake.parkedRequests[0], world.fake.parkedRequests[1])

    // when: one answer is applied, then the other
    let order =
      olderAnswerLast
      ? [(newer, secondPull), (older, firstPull)] : [(older, firstPull), (newer, secondPull)]
    for (answer, pull) in order {
      world.fake.releaseParkedRequest(answer)
      await pull.value
    }
    await world.settle()

    // then
    #expect(world.fake.requests("GET", "/users").count == 2)
    #expect(world.ui.object(User.self, id: ann)?.name == "Annie")
  }

  @Test(
    "A fetch of a contact out when the news rename them does not put the older name back")
  func userFetchOvertakenByNews() async throws {
    // given: Ann, not known here, connects, and the pull's fetch of her is held on its way
    // back; meanwhile the app adds her as a search found her, and she renames herself
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    world.fake.requestConnectionRemotely(from: ann)
    try await world.call(.updateConnection(user: ann, ConnectionUpdate(status: .accepted)))
    world.fake.addFault(.once(RequestMatcher("GET", "/users"), .holdAnswer))
    let firstPull = Task { await world.engine.pullNotifications() }
    await world.fake.waitForParkedRequests(1)
    try world.save([User(id: ann, name: "Ann")])
    await world.settle()
    world.fake.renameUserRemotely(ann, to: "Annie")
    await world.engine.pullNotifications()
    await world.settle()
    let renamedByNews = world.ui.object(User.self, id: ann)?.name

    // when: the fetch's older answer arrives
    world.fake.releaseAllParkedRequests()
    await firstPull.value
    await world.settle()

    // then
    #expect(renamedByNews == "Annie")
    #expect(world.ui.object(User.self, id: ann)?.name == "Annie")
  }

  @Test(
    "A fetch of the self user out when the news rename them on another device does not put the older name back"
  )
  func selfFetchOvertakenByNews() async throws {
    // given: the engine starts again, and its fetch of the self user is held on its way back;
    // meanwhile the self user renames themselves on another device, and a pull reads that
    let world = try await SyncWorld.start()
    world.fake.addFault(.once(RequestMatcher("GET", "/self"), .holdAnswer))
    let restart = Task { await world.engine.start() }
    await world.fake.waitForParkedRequests(1)
    world.fake.renameUserRemotely(world.me, to: "Maya")
    await world.engine.pullNotifications()
    await world.settle()
    let renamedByNews = world.ui.selfUser?.name

    // when: the fetch's older answer arrives
    world.fake.releaseAllParkedRequests()
    await restart.value
    await world.settle()

    // then
    #expect(renamedByNews == "Maya")
    #expect(world.ui.selfUser?.name == "Maya")
  }

  @Test(
    "A contact who renamed themselves while the connection was pending shows the new name once it is accepted",
    arguments: [true, false])
  func contactRenamedWhilePending(selfAsked: Bool) async throws {
    // given: a request between the self user and Ann waits, and the client knows her profile;
    // she renames herself, which the backend tells only the users she is connected with
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    if selfAsked {
      let me = try #require(world.ui.selfUser)
      let annUser = User(id: ann, name: "Ann")
      try world.save([
        annUser, world.make.connection(from: me, to: annUser, status: .sent, message: "Hi"),
      ])
    } else {
      world.fake.requestConnectionRemotely(from: ann)
      await world.engine.pullNotifications()
    }
    await world.settle()
    world.fake.renameUserRemotely(ann, to: "Annie")
    await world.engine.pullNotifications()
    await world.settle()
    let nameWhilePending = world.ui.object(User.self, id: ann)?.name

    // when: the one who was asked accepts, and the client reads the news
    if selfAsked {
      world.fake.acceptRemotely(by: ann)
    } else {
      try world.save { try $0.update(Connection.self, id: ann) { $0.status = .accepted } }
      await world.settle()
    }
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(nameWhilePending == "Ann")
    #expect(world.ui.object(Connection.self, id: ann)?.status == .accepted)
    #expect(world.ui.object(User.self, id: ann)?.name == "Annie")
  }

  @Test("A profile whose fetch failed is fetched again by the next pull, though no news name it")
  func failedUserFetchAskedAgain() async throws {
    // given: Ann asked to connect and renamed herself before the self user accepted; the pull
    // that reads the acceptance fails to fetch her profile
    expectLoggedError(containing: "GET /users answered 403")
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    world.fake.requestConnectionRemotely(from: ann)
    await world.engine.pullNotifications()
    await world.settle()
    world.fake.renameUserRemotely(ann, to: "Annie")
    try world.save { try $0.update(Connection.self, id: ann) { $0.status = .accepted } }
    await world.settle()
    world.fake.addFault(.once(RequestMatcher("GET", "/users"), .status(403)))
    await world.engine.pullNotifications()
    await world.settle()
    let nameAfterFailure = world.ui.object(User.self, id: ann)?.name

    // when
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(nameAfterFailure == "Ann")
    #expect(world.fake.requests("GET", "/users").count == 3)
    #expect(world.ui.object(User.self, id: ann)?.name == "Annie")
  }

  @Test(
    "A fetch of a contact out when the news show the connection accepted does not settle what the contact owes"
  )
  func userFetchOvertakenByAcceptance() async throws {
    // given: Ann asks to connect; the pull's fetch of her is answered as "Ann" but held on its
    // way back while she renames herself, the self user accepts, and the next pull, which reads
    // the acceptance, fails to fetch her
    expectLoggedError(containing: "GET /users answered 403")
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    world.fake.requestConnectionRemotely(from: ann)
    world.fake.addFault(.once(RequestMatcher("GET", "/users"), .holdAnswer))
    let firstPull = Task { await world.engine.pullNotifications() }
    await world.fake.waitForParkedRequests(1)
    // The pull saved the connection before its fetch went; its merge into the UI is not work
    // the parked request waits for.
    await pollingConfirmation("the UI holds the connection Ann asked for", until: .firstPass) {
      world.ui.object(Connection.self, id: ann) != nil
    }
    world.fake.renameUserRemotely(ann, to: "Annie")
    try world.save { try $0.update(Connection.self, id: ann) { $0.status = .accepted } }
    await world.settle()
    world.fake.addFault(.once(RequestMatcher("GET", "/users"), .status(403)))
    await world.engine.pullNotifications()
    world.fake.releaseAllParkedRequests()
    await firstPull.value
    await world.settle()

    // when
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(world.fake.requests("GET", "/users").count == 3)
    #expect(world.ui.object(User.self, id: ann)?.name == "Annie")
  }

  /// A world with a group in which another device of the self user then adds `count` users
  /// the client does not know, and those users.
  static func startAddingMembers(_ count: Int) async throws -> (SyncWorld, [UUID]) {
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "Team", by: me, members: [])
    }
    let group = try #require(world.ui.objects(Conversation.self).first)
    let users = (0..<count).map { world.fake.insertUser(name: "User \($0)") }
    world.fake.addMembersRemotely(users, to: group.id, by: world.me)
    return (world, users)
  }

  @Test("Users news name beyond what one fetch may ask for are fetched in several requests")
  func manyUnknownUsersFetchedInBatches() async throws {
    // given: another device of the self user adds more users to a group than one
    // `GET /users` may name
    let (world, users) = try await Self.startAddingMembers(Endpoint.maxUserIDs * 2 + 50)

    // when
    await world.engine.pullNotifications()
    await world.settle()

    // then
    let asked = world.fake.requests("GET", "/users").compactMap { entry -> [UUID]? in
      guard case .success(.getUsers(let ids)) = entry.request.endpoint else { return nil }
      return ids
    }
    #expect(asked.map(\.count) == [100, 100, 50])
    #expect(Set(asked.joined()) == Set(users))
    #expect(users.filter { world.ui.object(User.self, id: $0) == nil } == [])
  }

  @Test("Users left unfetched when the backend went out of reach are fetched by the next pull")
  func userBatchesAfterOffline() async throws {
    // given: news name more users than one fetch may ask for, and the backend cannot be reached
    // when the pull fetches them
    let (world, users) = try await Self.startAddingMembers(Endpoint.maxUserIDs + 1)
    world.fake.addFault(.always(RequestMatcher("GET", "/users"), .network(.offline)))
    await world.engine.pullNotifications()
    let triedOffline = world.fake.requests("GET", "/users").count
    world.fake.removeFaults()

    // when
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(triedOffline == 1)
    #expect(users.filter { world.ui.object(User.self, id: $0) == nil } == [])
  }

  @Test("A user the backend leaves out of a fetch's answer is not asked for again by later pulls")
  func userLeftOutOfAnswer() async throws {
    // given: news name a member the backend has no profile of
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "Team", by: me, members: [])
    }
    let group = try #require(world.ui.objects(Conversation.self).first)
    let me = try #require(world.ui.selfUser)
    world.fake.addMembersRemotely([UUID(77)], to: group.id, by: me.id)
    await world.engine.pullNotifications()
    await world.settle()

    // when
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(world.fake.requests("GET", "/users").count == 1)
    #expect(
      world.ui.object(Conversation.self, id: group.id)?.participantIDs.contains(UUID(77)) == true)
  }

  @Test(
    "A news page worked out before a change's answer was applied does not put the older value back",
    arguments: AnsweredChange.allCases)
  func newsPageOlderThanAnswer(change: AnsweredChange) async throws {
    // given: a first change is answered; the pull's page, which holds its news, is held on the
    // way back while a second change of the same object goes and is answered
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "Team", by: me, members: [])
    }
    let group = try #require(world.ui.objects(Conversation.self).first)
    let object = try change.makeFirst(in: world, group: group)
    await world.settle()
    world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .holdAnswer))
    let pull = Task { await world.engine.pullNotifications() }
    await world.fake.waitForParkedRequests(1)
    try change.makeSecond(of: object, in: world)
    await world.settle()

    // when
    world.fake.releaseAllParkedRequests()
    await pull.value
    await world.settle()

    // then: the page was applied, not asked for again, and its news of the first change,
    // older than the second's answer, left the object as that answer set it
    #expect(change.shown(of: object, in: world) == change.expected)
    #expect(world.fake.requests("GET", "/notifications").count == 2)
  }

  @Test("A profile fetched as the engine starts again does not put back a name answered meanwhile")
  func selfFetchOlderThanAnswer() async throws {
    // given: the engine starts again; the answer to its fetch of the self user is held on the
    // way back while a rename goes and is answered, and the pull after it waits
    let world = try await SyncWorld.start()
    await world.engine.stop()
    world.fake.addFault(.once(RequestMatcher("GET", "/self"), .holdAnswer))
    world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .park))
    let restart = Task { await world.engine.start() }
    await world.fake.waitForParkedRequests(1)
    try world.save { try $0.update(User.self, id: world.me) { $0.name = "Renamed" } }
    await world.settle()

    // when: the profile's answer arrives
    world.fake.releaseAllParkedRequests()
    await world.fake.waitForParkedRequests(1)
    await world.settle()
    let beforeTheNews = world.selfUser?.name
    world.fake.releaseAllParkedRequests()
    await restart.value
    await world.settle()

    // then
    #expect(beforeTheNews == "Renamed")
    #expect(world.selfUser?.name == "Renamed")
  }

  /// Two changes of one object, the second answered while a page with the first's news is out.
  enum AnsweredChange: String, CaseIterable, CustomTestStringConvertible {
    case selfRename = "a rename of the self user"
    case groupRename = "a rename of a group"
    case messageDeletion = "a message sent, then deleted"

    var testDescription: String { rawValue }

    /// Makes and saves the first change; returns the id of the object it changed.
    @MainActor func makeFirst(in world: SyncWorld, group: Conversation) throws -> UUID {
      switch self {
      case .selfRename:
        try world.save { try $0.update(User.self, id: world.me) { $0.name = "First" } }
        return world.me
      case .groupRename:
        try world.save { try $0.update(Conversation.self, id: group.id) { $0.name = "First" } }
        return group.id
      case .messageDeletion:
        let me = try #require(world.selfUser)
        let message = world.make.message(in: group, from: me, text: "First")
        try world.save([message])
        return message.id
      }
    }

    /// Makes and saves the second change of `id`.
    @MainActor func makeSecond(of id: UUID, in world: SyncWorld) throws {
      switch self {
      case .selfRename:
        try world.save { try $0.update(User.self, id: id) { $0.name = "Second" } }
      case .groupRename:
        try world.save { try $0.update(Conversation.self, id: id) { $0.name = "Second" } }
      case .messageDeletion:
        try world.save { try $0.delete(Message.self, id: id) }
      }
    }

    /// What the UI context shows of `id`.
    @MainActor func shown(of id: UUID, in world: SyncWorld) -> String? {
      switch self {
      case .selfRename: world.ui.object(User.self, id: id)?.name
      case .groupRename: world.ui.object(Conversation.self, id: id)?.name
      case .messageDeletion: world.ui.object(Message.self, id: id)?.text
      }
    }

    /// What it should show once both changes are answered and the news read.
    var expected: String? { self == .messageDeletion ? nil : "Second" }
  }

  @Test("A remote rename of a key with an unpushed local rename does not win; the local one does")
  func localRenameWins() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "Old", by: me, members: [])
    }
    let group = try #require(world.ui.objects(Conversation.self).first)
    world.fake.addFault(.once(RequestMatcher("PUT", "/conversations/*"), .park))
    try world.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Local" } }
    await world.fake.waitForParkedRequests(1)

    // when
    world.fake.renameRemotely(group.id, to: "Remote", by: world.me)
    await world.engine.pullNotifications()
    let duringFlight = world.ui.object(Conversation.self, id: group.id)?.name
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then
    #expect(duringFlight == "Local")
    #expect(world.fake.conversation(group.id)?.name == "Local")
    #expect(world.ui.object(Conversation.self, id: group.id)?.name == "Local")
  }

  @Test("An engine started again on the same store asks only for notifications after the last one")
  func resumesNotifications() async throws {
    // given: one engine applied the notifications so far, then went away
    let fake = FakeBackend(onUnmatched: { Issue.record("unmatched: \($0)") })
    let me = fake.insertSelfUser(name: "Me")
    fake.createGroupRemotely(name: "G", by: me, members: [])
    let store = InMemoryStore()
    let tracker = WorkTracker()
    let first = SyncEngine(
      stack: try ModelStack(store: store, tracker: tracker), transport: fake.transport)
    await first.start()
    _ = await first.settle()
    await first.stop()
    let last = try #require(fake.notifications.last?.id)

    // when
    let second = SyncEngine(
      stack: try ModelStack(store: store, tracker: tracker), transport: fake.transport)
    await second.start()
    _ = await second.settle()
    await second.stop()

    // then
    let sinces = fake.requests("GET", "/notifications").map { $0.request.queryValue("since") }
    #expect(sinces == [nil, last.uuidString.lowercased()])
    #expect(await second.lastNotificationID == last)
  }

  @Test(
    "When the backend forgets the last notification id, the engine catches up and reads news from the newest"
  )
  func unknownSince() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "G", by: me, members: [])
    }
    world.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .status(404)))

    // when
    await world.engine.pullNotifications()
    await world.settle()

    // then
    let last = try #require(world.fake.notifications.last?.id)
    #expect(await world.engine.lastNotificationID == last)
    #expect(
      world.fake.journal.dropFirst(2).map(\.route) == [
        .getNotifications, .getSelf, .lastNotification, .getConnections, .getConversations,
        // the news the backend still holds, for their messages, then those after the newest
        .getNotifications, .getNotifications,
      ])
    #expect(
      world.fake.requests("GET", "/notifications").last?.request.queryValue("since")
        == last.lowercasedText)
  }

  @Test(
    "Ready requests are all handed over, but a limited transport lets one reach the wire at a time")
  func inFlightLimit() async throws {
    // given
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock)
    let me = fake.insertSelfUser()
    let group = fake.createGroupRemotely(name: "G", by: me, members: [])
    let stack = ModelStack.forTesting()
    let engine = SyncEngine(
      stack: stack, transport: fake.transport.limited(to: 1, time: clock), time: clock)
    await engine.start()
    await expectSettled(stack.tracker)
    fake.addFault(.always(RequestMatcher("PUT", "/**"), .park))

    // when
    try stack.ui.context.update(User.self, id: me) { $0.name = "A" }
    try stack.ui.context.update(Conversation.self, id: group) { $0.name = "B" }
    try stack.ui.context.save()
    await fake.waitForParkedRequests(1)
    let queue = await engine.queue()
    let onTheWire = fake.parkedRequests.count
    let sendJobs = stack.tracker.outstandingJobs.filter { $0.label.hasPrefix("send PUT") }.count
    fake.removeFaults()
    fake.releaseAllParkedRequests()
    await expectSettled(stack.tracker)
    fake.releaseAllParkedRequests()
    await expectSettled(stack.tracker)

    // then
    #expect(queue.inFlight.count == 2)
    #expect(sendJobs == 2)
    #expect(onTheWire == 1)
    #expect(fake.user(me)?.name == "A")
    #expect(fake.conversation(group)?.name == "B")
  }

  @Test("Participants added to a group reach the backend as a member change")
  func addParticipant() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "G", by: me, members: [])
    }
    let ann = world.fake.insertUser(name: "Ann")
    try await world.connect(ann)
    let group = try #require(world.ui.objects(Conversation.self).first { $0.kind == .group })

    // when
    try world.save {
      try $0.update(Conversation.self, id: group.id) { $0.participantIDs.insert(ann) }
    }
    await world.settle()

    // then
    #expect(world.fake.requests("POST", "/conversations/*/members").count == 1)
    #expect(world.fake.conversation(group.id)?.otherMembers == [ann])
  }

  @Test(
    "A member the user adds back while their removal is out stays, whether the removal's news come before its answer or after",
    arguments: [true, false])
  func memberAddedBackWhileRemovalIsOut(newsFirst: Bool) async throws {
    // given: Ann is in a group with the self user; the backend applies the user's removal of
    // her and holds its answer, and the user adds her back meanwhile
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [world.me])
    await world.engine.pullNotifications()
    await world.settle()
    world.fake.addFault(.once(RequestMatcher("DELETE", "/conversations/*/members"), .holdAnswer))
    try world.setMember(ann, of: group, in: false)
    await world.fake.waitForParkedRequests(1)
    try world.setMember(ann, of: group, in: true)

    // when
    if newsFirst { await world.engine.pullNotifications() }
    await world.releaseHeldAndReadNews()

    // then: the user's last edit holds on both sides
    #expect(world.hasMember(ann, of: group))
  }

  @Test(
    "A member the user adds back stays, though news of her earlier addition and removal come while the new addition is out"
  )
  func memberAddedBackBeforeOlderNews() async throws {
    // given: the user added Ann to the group and removed her again, both answered, no news read
    // since; the backend holds the user's third change, adding her back, before it applies it
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    let group = world.fake.createGroupRemotely(name: "Lunch", by: world.me, members: [])
    await world.engine.pullNotifications()
    await world.settle()
    try await world.connect(ann)
    for isIn in [true, false] {
      try world.setMember(ann, of: group, in: isIn)
      await world.settle()
    }
    world.fake.addFault(.once(RequestMatcher("POST", "/conversations/*/members"), .park))
    try world.setMember(ann, of: group, in: true)
    await world.fake.waitForParkedRequests(1)

    // when: the news of the first two changes come before the third is applied
    await world.engine.pullNotifications()
    await world.releaseHeldAndReadNews()

    // then
    #expect(world.hasMember(ann, of: group))
  }

  @Test(
    "A member the user adds back stays, though news of her removal come after the addition is answered, while another member change is out (seed 172 of 300 steps)"
  )
  func memberAddedBackBeforeOlderNewsWithChangeWaiting() async throws {
    // given: Ann and Bob in the user's group; the user removed Ann, answered, then added her
    // back and removed Bob, which waited for the addition; the addition is answered and the
    // backend holds the removal; no news read since
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    let bob = world.fake.insertUser(name: "Bob")
    try await world.connect(ann)
    try await world.connect(bob)
    let group = world.ui.makeID()
    try world.save([
      Conversation(
        id: group, kind: .group, name: "Lunch", creatorID: world.me,
        participantIDs: [world.me, ann, bob], lastEventTime: Date(timeIntervalSince1970: 0))
    ])
    await world.settle()
    try world.setMember(ann, of: group, in: false)
    await world.settle()
    world.fake.addFault(.once(RequestMatcher("POST", "/conversations/*/members"), .park))
    world.fake.addFault(.once(RequestMatcher("DELETE", "/conversations/*/members"), .park))
    try world.setMember(ann, of: group, in: true)
    await world.fake.waitForParkedRequests(1)
    try world.setMember(bob, of: group, in: false)
    world.fake.releaseAllParkedRequests()
    await world.fake.waitForParkedRequests(1)

    // when: the news of Ann's removal come after her addition was answered, while Bob's
    // removal is out
    await world.engine.pullNotifications()
    await world.releaseHeldAndReadNews()

    // then
    #expect(world.hasMember(ann, of: group))
    #expect(!world.fake.members(of: group).contains(bob))
    #expect(world.ui.object(Conversation.self, id: group)?.participantIDs.contains(bob) == false)
  }

  @Test(
    "Removed from a group, the engine drops the message still waiting to go and tells its observer")
  func removedFromGroup() async throws {
    // given: a group Ann made with the self user, and a message of it waiting to retry a 503
    let events = Recorder<SyncEngineEvent>()
    let clock = ManualTimeSource()
    let fake = FakeBackend(time: clock)
    let me = fake.insertSelfUser()
    let ann = fake.insertUser(name: "Ann")
    let group = fake.createGroupRemotely(name: "G", by: ann, members: [me])
    let stack = ModelStack.forTesting()
    let engine = SyncEngine(
      stack: stack, transport: fake.transport, time: clock, onEvent: events.record)
    await engine.start()
    await expectSettled(stack.tracker)
    let conversation = try #require(stack.ui.context.object(Conversation.self, id: group))
    let message = ModelFactory().message(
      in: conversation, from: User(id: me, isSelf: true, name: "Me"))
    fake.addFault(.once(RequestMatcher("POST", "/conversations/*/messages"), .status(503)))
    try stack.ui.context.insert(message)
    try stack.ui.context.save()
    await clock.waitForSleepers(1)
    fake.removeMembersRemotely([me], from: group, by: ann)

    // when
    await engine.pullNotifications()
    clock.advance(by: .seconds(60))
    await expectSettled(stack.tracker)

    // then
    let dropped = DroppedChange(
      item: SyncQueueSnapshot.Item(object: message.reference, kind: .insert), conversation: group)
    #expect(events.elements.contains(.changeDropped(dropped)))
    #expect(stack.ui.context.object(Message.self, id: message.id) == nil)
    #expect(fake.requests("POST", "/conversations/*/messages").map(\.status) == [503])
    #expect(await engine.queue().isEmpty)
  }

  @Test("The engine reports each request and its outcome to its observer")
  func events() async throws {
    // given
    let events = Recorder<SyncEngineEvent>()
    let fake = FakeBackend()
    fake.insertSelfUser()
    let stack = ModelStack.forTesting()
    let engine = SyncEngine(stack: stack, transport: fake.transport, onEvent: events.record)

    // when
    await engine.start()
    await expectSettled(stack.tracker)

    // then
    #expect(
      events.elements.prefix(2).map(\.description) == [
        "GET /self → 200", "GET /notifications?size=100 → 200",
      ])
  }
}

extension SyncWorld {
  /// Saves in the UI context whether `user` is in `group`.
  fileprivate func setMember(_ user: UUID, of group: UUID, in isIn: Bool) throws {
    try save {
      try $0.update(Conversation.self, id: group) {
        if isIn { $0.participantIDs.insert(user) } else { $0.participantIDs.remove(user) }
      }
    }
  }

  /// Lets the backend answer every request it holds, then reads the news, settling after each.
  fileprivate func releaseHeldAndReadNews() async {
    fake.releaseAllParkedRequests()
    await settle()
    await engine.pullNotifications()
    await settle()
  }

  /// Whether `user` is in `group` both on the backend and in the UI context.
  fileprivate func hasMember(_ user: UUID, of group: UUID) -> Bool {
    fake.members(of: group).contains(user)
      && ui.object(Conversation.self, id: group)?.participantIDs.contains(user) == true
  }
}
