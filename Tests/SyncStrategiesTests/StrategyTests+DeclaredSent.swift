import ConnectionParsing
import ConversationParsing
import CourierAPI
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension StrategyTests {
  /// What a strategy declares a request leaves on the backend, checked against what the fake
  /// holds once it applied the request: the tracker settles the carried keys by it, and relies on
  /// it when an answer is lost or a refused resend is given up, so a wrong declaration keeps a
  /// value here that the backend never had.
  @Suite("What each request declares the backend holds after it")
  @MainActor
  struct DeclaredSent {
    /// Why a request could not be checked.
    struct NotApplied: Error, CustomStringConvertible {
      let description: String
    }

    /// Applies what `strategy` makes of `change` to `fake`, and returns the carried keys the
    /// strategy pushes on which neither the declared value nor any value declared also possible
    /// agrees with what `read` finds on the fake afterwards.
    static func keysDeclaredWrongly<Strategy: UpstreamStrategy>(
      by strategy: Strategy, for change: UpstreamChange<Strategy.Object>,
      in context: ModelContext, on fake: FakeBackend,
      reading read: (FakeBackend) -> Strategy.Object?
    ) throws -> Set<Strategy.Object.Key> {
      let action = try strategy.action(for: change, in: context)
      guard case .send(let endpoint, let carrying, let sent?, let alsoPossible) = action else {
        throw NotApplied(description: "the \(change.kind) of \(change.id) declared nothing sent")
      }
      if case .failure(let error) = fake.answer(endpoint) {
        throw NotApplied(description: "the fake refused \(endpoint): \(error)")
      }
      guard let held = read(fake) else {
        throw NotApplied(description: "the fake holds no \(Strategy.Object.self) \(change.id)")
      }
      let checked = carrying.intersection(strategy.pushableKeys)
      let differing = ([sent] + alsoPossible).map {
        $0.changedKeys(comparedTo: held).intersection(checked)
      }
      return differing.contains { $0.isEmpty } ? [] : differing[0]
    }

    // MARK: - The self user

    @Test(
      "A change of the self user's profile declares the values the backend then holds",
      arguments: combinations(of: [User.Key.name, .accentID, .handle]))
    func selfUser(keys: [User.Key]) throws {
      // given
      let harness = TrackerHarness()
      var profile = harness.me
      if keys.contains(.name) { profile.name = "Ada" }
      if keys.contains(.accentID) { profile.accentID = 7 }
      if keys.contains(.handle) { profile.handle = "ada" }
      let change = UpstreamChange(
        kind: .update, id: profile.id, object: profile, lastKnown: harness.me, keys: Set(keys))

      // when
      let wrong = try Self.keysDeclaredWrongly(
        by: SelfUserStrategy(), for: change, in: harness.ui, on: harness.fake
      ) { fake in fake.user(harness.me.id).map { PayloadMapping.user($0, isSelf: true) } }

      // then
      #expect(wrong.isEmpty)
    }

    // MARK: - Connections

    @Test(
      "A request to connect declares the sent request the backend makes, whatever the status here",
      arguments: Connection.Status.allCases)
    func connectionRequest(status: Connection.Status) throws {
      // given
      let make = ModelFactory()
      let ann = make.user(name: "Ann")
      let harness = TrackerHarness([ann], make: make)
      harness.fake.insertUser(id: ann.id, name: "Ann")
      let connection = make.connection(from: harness.me, to: ann, status: status, message: "Hi")
      let change = UpstreamChange(
        kind: .insert, id: ann.id, object: connection, keys: Set(Connection.Key.allCases))

      // when
      let wrong = try Self.keysDeclaredWrongly(
        by: ConnectionStrategy(), for: change, in: harness.ui, on: harness.fake
      ) { fake in fake.connection(from: harness.me.id, to: ann.id).map(PayloadMapping.connection) }

      // then
      #expect(wrong.isEmpty)
    }

    /// Every change of status the backend allows the self user, from the status it holds.
    nonisolated static let allowedStatusChanges: [(ConnectionStatus, Connection.Status)] = [
      (.sent, .cancelled), (.pending, .accepted), (.pending, .ignored), (.pending, .blocked),
      (.accepted, .blocked), (.blocked, .accepted), (.ignored, .accepted), (.ignored, .blocked),
    ]

    /// Brings the fake's connection from the self user to `user` to `status`: a request sent,
    /// or one received and then answered.
    static func connect(_ fake: FakeBackend, to user: UUID, reaching status: ConnectionStatus) {
      if status == .sent {
        _ = fake.answer(.requestConnection(ConnectionRequest(user: user, name: "Ann")))
        return
      }
      fake.requestConnectionRemotely(from: user)
      if status != .pending {
        _ = fake.answer(.updateConnection(user: user, ConnectionUpdate(status: status)))
      }
    }

    @Test(
      "A change of a connection's status declares the status the backend then holds",
      arguments: allowedStatusChanges)
    func connectionStatus(held: ConnectionStatus, wanted: Connection.Status) throws {
      // given
      let make = ModelFactory()
      let ann = make.user(name: "Ann")
      let harness = TrackerHarness([ann], make: make)
      harness.fake.insertUser(id: ann.id, name: "Ann")
      Self.connect(harness.fake, to: ann.id, reaching: held)
      let backend = try #require(
        harness.fake.connection(from: harness.me.id, to: ann.id).map(PayloadMapping.connection))
      var connection = backend
      connection.status = wanted
      let change = UpstreamChange(
        kind: .update, id: ann.id, object: connection, lastKnown: backend, keys: [.status])

      // when
      let wrong = try Self.keysDeclaredWrongly(
        by: ConnectionStrategy(), for: change, in: harness.ui, on: harness.fake
      ) { fake in fake.connection(from: harness.me.id, to: ann.id).map(PayloadMapping.connection) }

      // then
      #expect(backend.status.rawValue == held.rawValue)
      #expect(wrong.isEmpty)
    }

    // MARK: - Groups

    /// A user connected with the self user on the fake, who may be in a group.
    enum Contact: String, Sendable, CaseIterable {
      case ann, bob, cat
    }

    /// Whether the backend applied an earlier addition of ``Contact/bob`` whose answer was lost.
    enum LostAddition: Sendable {
      case applied, notApplied
    }

    /// A change of the group "Old", which has the self user and ``Contact/ann`` on the backend, or
    /// a new group.
    struct GroupChange: Sendable, CustomTestStringConvertible {
      let testDescription: String
      var isNew = false
      var name: String?
      let others: [Contact]
      var lostAddition: LostAddition?
    }

    /// Each change of a group the strategy turns into one request, with the backend's state.
    nonisolated static let groupChanges = [
      GroupChange(testDescription: "a new group", isNew: true, name: "New", others: [.ann, .bob]),
      GroupChange(testDescription: "a new name", name: "New", others: [.ann]),
      GroupChange(testDescription: "a member added", others: [.ann, .bob]),
      GroupChange(testDescription: "the only other member removed", others: []),
      GroupChange(testDescription: "a member swapped for another", others: [.bob]),
      GroupChange(
        testDescription: "a new name and a member added", name: "New", others: [.ann, .bob]),
      GroupChange(
        testDescription: "a member left out whose addition's answer was lost, and it applied",
        others: [.ann, .cat], lostAddition: .applied),
      GroupChange(
        testDescription: "a member left out whose addition's answer was lost, and it did not apply",
        others: [.ann, .cat], lostAddition: .notApplied),
      GroupChange(
        testDescription:
          "a member removed and one kept whose addition's answer was lost, and it applied",
        others: [.bob], lostAddition: .applied),
      GroupChange(
        testDescription:
          "a member removed and one kept whose addition's answer was lost, and it did not apply",
        others: [.bob], lostAddition: .notApplied),
    ]

    @Test(
      "A change of a group declares the name and members the backend then holds, or one of them when an earlier answer was lost",
      arguments: groupChanges)
    func group(change groupChange: GroupChange) throws {
      // given
      let harness = TrackerHarness()
      let me = harness.me.id
      var contacts: [Contact: UUID] = [:]
      for contact in Contact.allCases {
        let id = harness.fake.insertUser(name: contact.rawValue)
        Self.connect(harness.fake, to: id, reaching: .accepted)
        contacts[contact] = id
      }
      let others = Set(groupChange.others.compactMap { contacts[$0] })
      let id = harness.fake.createGroupRemotely(
        name: "Old", by: me, members: [contacts[.ann]].compactMap { $0 })
      let backend = try #require(harness.fake.conversation(id).map(PayloadMapping.conversation))
      var unconfirmed: [Conversation] = []
      if let lost = groupChange.lostAddition, let bob = contacts[.bob] {
        var added = backend
        added.participantIDs.insert(bob)
        unconfirmed = [added]
        if lost == .applied {
          _ = harness.fake.answer(.addMembers(conversation: id, MemberList(users: [bob])))
        }
      }
      let change: UpstreamChange<Conversation>
      if groupChange.isNew {
        var group = harness.make.conversation(name: groupChange.name, creator: harness.me)
        group.participantIDs = others.union([me])
        change = UpstreamChange(
          kind: .insert, id: group.id, object: group, keys: Set(Conversation.Key.allCases))
      } else {
        var group = backend
        group.name = groupChange.name ?? backend.name
        group.participantIDs = others.union([me])
        change = UpstreamChange(
          kind: .update, id: id, object: group, lastKnown: backend,
          keys: group.changedKeys(comparedTo: backend), unconfirmed: unconfirmed)
      }

      // when
      let wrong = try Self.keysDeclaredWrongly(
        by: ConversationStrategy(), for: change, in: harness.ui, on: harness.fake
      ) { fake in fake.conversation(change.id).map(PayloadMapping.conversation) }

      // then
      #expect(wrong.isEmpty)
    }
  }
}
