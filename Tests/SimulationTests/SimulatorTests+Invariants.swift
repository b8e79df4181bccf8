import Foundation
import Models
import Seams
import TestSupport
import Testing

@testable import Simulation
@testable import SyncStrategies

extension SimulatorTests {
  /// Each check of the sync promise, proven able to fail: a strategy broken in one way is
  /// caught by the check meant for it.
  @Suite("When a strategy is broken")
  @MainActor
  struct Broken {
    struct Case: Sendable, CustomTestStringConvertible {
      let name: String
      let strategies: [any UpstreamStrategy]
      let schedule: [SimulationStep]
      let invariant: Invariant
      var testDescription: String { name }
    }

    nonisolated static let cases: [Case] = [
      Case(
        name: "a self user strategy that forgets the name",
        strategies: SimulatorTests.strategies(replacing: 0, with: ForgetfulSelfUserStrategy()),
        schedule: [.renameSelf("Ada")], invariant: .savedValueLost),
      Case(
        name: "a message strategy that gives a resent message a new nonce",
        strategies: SimulatorTests.strategies(replacing: 3, with: FreshNonceMessageStrategy()),
        schedule: [
          .fault(.lostResponse), .writeMessage(conversation: 0, text: "hello"),
          .advance(milliseconds: 2_000),
        ],
        invariant: .createdTwice),
      Case(
        name: "a message strategy that does not wait for earlier messages",
        strategies: SimulatorTests.strategies(replacing: 3, with: UnorderedMessageStrategy()),
        schedule: [
          .fault(.park), .writeMessage(conversation: 0, text: "first"),
          .writeMessage(conversation: 0, text: "second"),
        ],
        invariant: .messagesOutOfOrder),
      Case(
        name: "a self user strategy whose change never settles",
        strategies: SimulatorTests.strategies(replacing: 0, with: ShoutingSelfUserStrategy()),
        schedule: [.renameSelf("quiet")], invariant: .queueNotDrained),
      Case(
        name: "a group strategy that drops a renamed group from this device",
        strategies: SimulatorTests.strategies(replacing: 2, with: VanishingGroupStrategy()),
        schedule: [.renameGroup(group: 0, name: "gone")], invariant: .endStateDiffers),
      Case(
        // Another member's change makes the group one to leave alone until the app catches up,
        // and catching up puts the old name back, which then agrees with the server.
        name: "a group strategy that settles a rename without sending it",
        strategies: SimulatorTests.strategies(replacing: 2, with: ForgetfulGroupStrategy()),
        schedule: [
          .remoteAddMember(group: 0, contact: 0), .renameGroup(group: 0, name: "forgotten"),
          .expireNotifications(keepingLast: 0), .pull,
        ],
        invariant: .lastEditLost),
    ]

    @Test(
      "The check meant for it stops the run and names the rule, with pages of any size",
      arguments: cases, [100, 2])
    func caught(_ broken: Case, pageSize: Int) async {
      // given: a cap of requests far above what these schedules need, and far below the
      // default, so a client that never stops sending is caught soon
      var options = SimulationOptions(durableStore: false, strategies: broken.strategies)
      options.pageSize = pageSize
      options.requestLimit = 200

      // when
      let report = await Simulator.run(seed: 5, schedule: broken.schedule, options: options)

      // then
      #expect(
        report.violation?.invariant == broken.invariant, "\(String(describing: report.violation))")
      #expect(!report.lastEvents.isEmpty)
    }

    /// A defect planted in the client's link, the schedule that shows it, and the rule that
    /// catches it.
    struct FlawCase: Sendable, CustomTestStringConvertible {
      let name: String
      let flaw: DeviceFlaw
      let schedule: [SimulationStep]
      let invariant: Invariant
      var testDescription: String { name }
    }

    nonisolated static let flawCases: [FlawCase] = [
      // The client reads its news once; later reads answer with the stream's first news.
      FlawCase(
        name: "reads of news that go back to the stream's start", flaw: .rewindsCursor,
        schedule: [
          .remotePost(conversation: 0, text: "one"), .pull,
          .remotePost(conversation: 0, text: "two"), .pull,
        ],
        invariant: .cursorMovedBack),
      // Another member renames the group and the client reads it; every later read takes the
      // whole stream again, newest first, which ends on the group's making.
      FlawCase(
        name: "reads of news that, after one, take them all again newest first",
        flaw: .replaysNewsBackwardsAfterOneRead,
        schedule: [
          .remoteRename(group: 0, name: "first"), .pull,
          .remoteRename(group: 0, name: "second"), .pull,
        ],
        invariant: .olderValueShown),
      // The backend applies a leave and holds its answer; another member adds the self user
      // back; the app restarts and sends the leave again, which the link strips of its key.
      FlawCase(
        name: "a link that drops idempotency keys, under which a leave goes again after a restart",
        flaw: .forgetsIdempotencyKeys, schedule: SimulatorTests.Restarts.leaveHeldAcrossRestart,
        invariant: .overwroteLaterChange),
    ]

    @Test(
      "A client with a flaw in its reads of news breaks the rule meant for it, and without the flaw keeps every rule",
      arguments: flawCases)
    func flawCaught(_ flawed: FlawCase) async {
      // given
      var options = SimulationOptions(durableStore: false)
      options.flaw = flawed.flaw

      // when
      let report = await Simulator.run(seed: 5, schedule: flawed.schedule, options: options)
      options.flaw = nil
      let sound = await Simulator.run(seed: 5, schedule: flawed.schedule, options: options)

      // then
      #expect(
        report.violation?.invariant == flawed.invariant, "\(String(describing: report.violation))")
      #expect(sound.violation == nil, "\(String(describing: sound.violation))")
    }

    @Test("Two requests carrying one key of one object are caught from the queue")
    func keyInFlightTwice() {
      // given
      let name = KeySet([.name], of: User.self)
      let me = ObjectReference(.user, UUID(1))
      var queue = SyncQueueSnapshot()
      queue.inFlight = [
        .init(object: me, kind: .update, keys: name),
        .init(object: me, kind: .update, keys: KeySet([.name, .accentID], of: User.self)),
      ]
      var disjoint = SyncQueueSnapshot()
      disjoint.inFlight = [
        .init(object: me, kind: .update, keys: name),
        .init(object: me, kind: .update, keys: KeySet([.accentID], of: User.self)),
      ]

      // when
      let problem = Simulator.keyInFlightTwice(queue)
      let none = Simulator.keyInFlightTwice(disjoint)

      // then
      #expect(problem?.contains("name") == true)
      #expect(none == nil)
    }

    // The tracker withdraws a refusal the user superseded before any strategy sees it, so
    // this check is proven on made-up views.
    @Test(
      "A refusal left as a failure on an object deleted here since is caught and named",
      arguments: zip([false, true, false], [true, true, false]))
    func supersededFailure(deletedHere: Bool, stillHere: Bool) {
      // given
      let group = Conversation(
        id: UUID(1), kind: .group, name: "Lunch", creatorID: UUID(2), participantIDs: [],
        lastEventTime: Date(timeIntervalSince1970: 0))
      var view = ClientView(Tables(stillHere ? [group] : []))
      if deletedHere { view.pendingDeletes = [group.reference] }

      // when
      let problem = Simulator.supersededFailure([group.reference], in: view)

      // then
      #expect((problem != nil) == (deletedHere || !stillHere))
      #expect(problem.map { $0.contains(group.id.uuidString.lowercased()) } ?? true)
    }

    @Test(
      "A refused deletion of a message is left to the app when the self user is back in its group on the server, and caught otherwise",
      arguments: [true, false])
    func refusedDeletionAfterRejoin(selfIsMember: Bool) {
      // given: the message's deletion is pending and refused, its group is here
      let group = Conversation(
        id: UUID(1), kind: .group, name: "Lunch", creatorID: UUID(2), participantIDs: [],
        lastEventTime: Date(timeIntervalSince1970: 0))
      let message = Message(
        nonce: UUID(3), conversationID: group.id, senderID: UUID(2), text: "Hi",
        localTime: Date(timeIntervalSince1970: 0))
      var view = ClientView(Tables([group]))
      view.pendingDeletes = [message.reference]
      view.deletedMessageConversations = [message.id: group.id]

      // when
      let problem = Simulator.supersededFailure(
        [message.reference], in: view, selfIsMember: { $0 == group.id && selfIsMember })

      // then
      #expect((problem == nil) == selfIsMember)
    }

    /// The backend's status of the connection (`nil`: none), whether the client holds the
    /// connection and the message, and what the check should name (`nil`: nothing).
    nonisolated static let newsCases: [(Connection.Status?, Bool, Bool, String?)] = [
      (nil, true, true, nil),
      (.accepted, true, true, nil),
      (.pending, true, true, "accepted here, pending on the server"),
      (.accepted, false, true, "is accepted on the server but not here"),
      (nil, true, false, "is on the server but not here"),
    ]

    // The news are applied by the engine, not by a strategy, so this check is proven on
    // made-up views.
    @Test(
      "A connection or message the server holds that the client lacks is caught and named",
      arguments: newsCases)
    func newsMissed(
      serverStatus: Connection.Status?, connectionHere: Bool, messageHere: Bool, expected: String?
    ) {
      // given
      let (me, contact, conversation, nonce) = (UUID(1), UUID(2), UUID(3), UUID(4))
      let connection = Connection(
        from: me, to: contact, status: .accepted, lastUpdate: Date(timeIntervalSince1970: 0))
      let message = Message(
        nonce: nonce, conversationID: conversation, senderID: contact, text: "hi",
        localTime: Date(timeIntervalSince1970: 0))
      let objects: [any ModelObject] =
        (connectionHere ? [connection] : []) + (messageHere ? [message] : [])
      let view = ClientView(Tables(objects))
      let connections = serverStatus.map { [(contact: contact, status: $0)] } ?? []

      // when
      let problem = Simulator.newsMissed(
        connections: connections, messages: [conversation: [nonce]], view: view)

      // then
      #expect(
        problem.map { $0.contains(expected ?? "?") } ?? (expected == nil), "\(problem ?? "nil")")
    }

    @Test(
      "A message its sender deleted on the server that the client still holds is caught and named",
      arguments: zip(
        [true, false], ["deleted on the server by its sender but is still here", nil]))
    func deletionMissed(messageHere: Bool, expected: String?) {
      // given
      let message = Message(
        nonce: UUID(4), conversationID: UUID(3), senderID: UUID(2), text: "hi",
        localTime: Date(timeIntervalSince1970: 0))
      let view = ClientView(Tables(messageHere ? [message] : []))

      // when
      let problem = Simulator.newsMissed(
        connections: [], messages: [:], deleted: [message.id], view: view)

      // then
      #expect(
        problem.map { $0.contains(expected ?? "?") } ?? (expected == nil), "\(problem ?? "nil")")
    }

    @Test(
      "A connected contact shown under an older name than the server's is caught and named",
      arguments: zip(["Annie", "Ann"], ["named Ann here, Annie on the server", nil]))
    func contactNameMissed(serverName: String, expected: String?) {
      // given
      let (me, ann) = (UUID(1), UUID(2))
      let view = ClientView(
        Tables([
          User(id: ann, name: "Ann"),
          Connection(
            from: me, to: ann, status: .accepted, lastUpdate: Date(timeIntervalSince1970: 0)),
        ]))

      // when
      let problem = Simulator.newsMissed(
        connections: [(contact: ann, status: .accepted)], names: [ann: serverName], messages: [:],
        view: view)

      // then
      #expect(
        problem.map { $0.contains(expected ?? "?") } ?? (expected == nil), "\(problem ?? "nil")")
    }

    // No strategy can keep the engine's jobs running after the drain (strategies are
    // synchronous and hold no tracker), so this check is proven on a tracker made for it.
    @Test("A job still running after the drain is caught and named")
    func notQuiescent() {
      // given
      let busy = WorkTracker()
      let job = busy.enter("a sync pass that never ends")
      let idle = WorkTracker()

      // when
      let problem = Simulator.notQuiescent(busy)
      let none = Simulator.notQuiescent(idle)

      // then
      #expect(problem?.contains("a sync pass that never ends") == true)
      #expect(none == nil)
      job.leave()
    }

    @Test("A failing schedule shrinks to the steps that break the rule")
    func shrink() async {
      // given
      let options = SimulationOptions(
        durableStore: false,
        strategies: SimulatorTests.strategies(replacing: 0, with: ForgetfulSelfUserStrategy()))
      var schedule = ScheduleGenerator(options: SimulationOptions(steps: 24, restarts: false))
        .schedule(seed: 9).filter {
          if case .renameSelf = $0 { return false }
          return true
        }
      schedule.insert(.renameSelf("Ada"), at: schedule.count / 2)

      // when
      let shortest = await Shrinker.shrink(
        seed: 5, schedule: schedule, breaking: .savedValueLost, options: options)

      // then
      #expect(shortest == [.renameSelf("Ada")])
    }
  }
}
