import ConnectionParsing
import ConversationParsing
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Models
import ModelsTestSupport
import SyncEngine
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import Transport
import UserParsing

@Suite(
  "Sync integration", .tags(.sync, .integration),
  .courier(timeBudget: .seconds(10), settleTimeout: .seconds(2)))
@MainActor
struct SyncIntegrationTests {
  @Test("A connection request is sent once, and the remote accept arrives with its conversation")
  func connectionRequestAccepted() async throws {
    // given
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    let annUser = User(id: ann, name: "Ann")
    let me = try #require(world.ui.selfUser)
    try world.save([
      annUser,
      world.make.connection(from: me, to: annUser, status: .sent, message: "Hi"),
    ])
    await world.settle()

    // when
    world.fake.acceptRemotely(by: ann)
    await world.engine.pullNotifications()
    await world.settle()

    // then
    #expect(world.fake.requests("POST", "/connections").count == 1)
    let connection = try #require(world.ui.connection(of: annUser))
    #expect(connection.status == .accepted)
    let conversation = try #require(world.ui.conversation(of: connection))
    #expect(conversation.kind == .oneToOne)
    #expect(conversation.participantIDs == [me.id, ann])
    #expect(await world.engine.queue().isEmpty)
  }

  @Test(
    "Renaming twice while the first rename is in flight sends exactly two requests, ending on the latest"
  )
  func renameTwiceInFlight() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "Old", by: me, members: [])
    }
    let group = try #require(world.ui.objects(Conversation.self).first)
    world.fake.addFault(.once(RequestMatcher("PUT", "/conversations/*"), .park))
    try world.save { try $0.update(Conversation.self, id: group.id) { $0.name = "First" } }
    await world.fake.waitForParkedRequests(1)

    // when
    try await expectNextMerge(into: world.stack.sync) {
      try world.save { try $0.update(Conversation.self, id: group.id) { $0.name = "Second" } }
    }
    let queued = await world.engine.queue()
    world.fake.releaseAllParkedRequests()
    await world.settle()

    // then
    #expect(queued.inFlight.map(\.keys.names) == [["name"]])
    #expect(
      world.fake.requests("PUT", "/conversations/*").compactMap {
        $0.request.json?["name"]?.stringValue
      } == [
        "First", "Second",
      ])
    #expect(world.fake.conversation(group.id)?.name == "Second")
    #expect(world.ui.object(Conversation.self, id: group.id)?.name == "Second")
  }

  @Test(
    "Three messages written offline reach the server once each, in order, even when a response is lost"
  )
  func offlineMessages() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "G", by: me, members: [])
    }
    let group = try #require(world.ui.objects(Conversation.self).first)
    let me = try #require(world.ui.selfUser)
    world.fake.network = .offline
    for text in ["one", "two", "three"] {
      try world.save([world.make.message(in: group, from: me, text: text)])
    }
    await world.settle()
    let offline = await (world.engine.isOnline, world.engine.queue())

    // when
    world.fake.network = .online
    world.fake.addFault(.once(RequestMatcher("POST", "/conversations/*/messages"), .loseResponse))
    await world.engine.setOnline(true)
    await world.clock.waitForSleepers(1)
    world.clock.advance(by: .seconds(60))
    await world.settle()

    // then
    #expect(offline.0 == false)
    #expect(offline.1.pending.count + offline.1.blocked.count + offline.1.retrying.count == 3)
    #expect(world.fake.messages(in: group.id).map(\.text) == ["one", "two", "three"])
    #expect(world.ui.messages(in: group).map(\.deliveryState) == [.sent, .sent, .sent])
    #expect(
      world.fake.requests("POST", "/conversations/*/messages")
        .filter { $0.status == 201 && $0.fault == nil }.count == 3)
  }

  @Test("A new group with a participant and a first message is sent in dependency order")
  func groupWithFirstMessage() async throws {
    // given
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    try await world.connect(ann)
    let me = try #require(world.ui.selfUser)
    let annUser = try #require(world.ui.object(User.self, id: ann))
    let group = world.make.conversation(name: "Team", creator: me, participants: [annUser])

    // when
    try world.save([group, world.make.message(in: group, from: me, text: "Welcome")])
    await world.settle()

    // then
    let writes = world.fake.journal.filter { $0.request.method != "GET" }.map(\.route)
    #expect(writes.suffix(2) == [.createConversation, .postMessage])
    #expect(world.fake.conversation(group.id)?.otherMembers == [ann])
    #expect(world.fake.messages(in: group.id).map(\.text) == ["Welcome"])
  }

  @Test("A group waits for the acceptance of its participant's connection, pushed first")
  func groupWaitsForConnection() async throws {
    // given
    let world = try await SyncWorld.start()
    let ann = world.fake.insertUser(name: "Ann")
    world.fake.requestConnectionRemotely(from: ann)
    await world.engine.pullNotifications()
    await world.settle()
    let me = try #require(world.ui.selfUser)
    let annUser = try #require(world.ui.object(User.self, id: ann))
    let group = world.make.conversation(name: "Team", creator: me, participants: [annUser])

    // when
    try world.save([group]) { try $0.update(Connection.self, id: ann) { $0.status = .accepted } }
    await world.settle()

    // then
    let writes = world.fake.journal.filter { $0.request.method != "GET" }.map(\.route)
    #expect(writes == [.updateConnection, .createConversation])
    #expect(world.fake.connection(from: me.id, to: ann)?.status == .accepted)
  }

  @Test("A permanent failure surfaces on the object and blocks nothing else")
  func permanentFailure() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "G", by: me, members: [])
    }
    world.fake.addFault(.always(RequestMatcher("PUT", "/self"), .status(400)))
    expectLoggedError(containing: "was refused for good")
    let group = try #require(world.ui.objects(Conversation.self).first)
    let me = try #require(world.ui.selfUser)

    // when
    try world.save([world.make.message(in: group, from: me, text: "Still sent")]) {
      try $0.update(User.self, id: me.id) { $0.name = "Refused" }
    }
    await world.settle()

    // then
    let queue = await world.engine.queue()
    #expect(queue.failed.map(\.object) == [ObjectReference(.user, me.id)])
    #expect(queue.failed.first?.reason.contains("400") == true)
    #expect(world.fake.messages(in: group.id).map(\.text) == ["Still sent"])
    #expect(world.ui.selfUser?.name == "Refused")
    #expect(world.fake.requests("PUT", "/self").count == 1)
  }

  @Test("A message the backend refuses for good is marked failed for the UI")
  func failedMessage() async throws {
    // given
    let world = try await SyncWorld.start { fake, me in
      fake.createGroupRemotely(name: "G", by: me, members: [])
    }
    world.fake.addFault(.always(RequestMatcher("POST", "/conversations/*/messages"), .status(403)))
    expectLoggedError(containing: "was refused for good")
    let group = try #require(world.ui.objects(Conversation.self).first)
    let message = world.make.message(in: group, from: try #require(world.ui.selfUser))

    // when
    try world.save([message])
    await world.settle()

    // then
    #expect(world.ui.object(Message.self, id: message.id)?.deliveryState == .failed)
    #expect(
      await world.engine.queue().failed.map(\.object) == [ObjectReference(.message, message.id)])
  }
}
