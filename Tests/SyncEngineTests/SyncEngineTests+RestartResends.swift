import ConnectionParsing
import ConversationParsing
import CourierAPI
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

extension SyncEngineTests {
  /// A change the backend applied whose answer the app never heard, sent again by the next
  /// life of the app after another device changed the same key.
  ///
  /// The resend goes under the key of the first request, so the backend applies it at most
  /// once; the first answer's version places it before the other device's change, which stands.
  @Suite("Resends after a restart, in the server's order")
  @MainActor
  struct RestartResends {
    /// A backend with a self user, the store the app's lives share, and the clock they run on.
    struct Device {
      let clock = ManualTimeSource()
      let fake: FakeBackend
      let me: UUID
      let store = InMemoryStore()

      init() {
        fake = FakeBackend(time: clock)
        me = fake.insertSelfUser(name: "Ada")
      }

      /// Starts a life of the app on the store, with its own stack and engine.
      func start() async throws -> (stack: ModelStack, engine: SyncEngine) {
        let stack = try ModelStack(store: store, tracker: WorkTracker())
        let engine = SyncEngine(stack: stack, transport: fake.transport, time: clock)
        await engine.start()
        _ = await engine.settle(
          advancing: clock, quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
        return (stack, engine)
      }

      /// Starts a life, saves `edit` in it, lets the backend apply it with its answer held, lets
      /// `other` change the backend, pulls the news (before `other` if `pullingFirst`), and ends
      /// the life with the answer unheard; then starts the next life and lets it settle, losing
      /// the answer to its first resend too if `losingResend`.
      @MainActor
      func restart(
        afterUnheard edit: (ModelContext) throws -> Void, holding matcher: RequestMatcher,
        pullingFirst: Bool = false, losingResend: Bool = false, then other: () -> Void
      ) async throws -> ModelContext {
        let first = try await start()
        fake.addFault(.once(matcher, .holdAnswer))
        try edit(first.stack.ui.context)
        try first.stack.ui.context.save()
        await fake.waitForParkedRequests(1)
        if pullingFirst { await first.engine.pullNotifications() }
        other()
        if !pullingFirst { await first.engine.pullNotifications() }
        await first.engine.setOnline(false)
        for index in fake.parkedRequests { fake.dropParkedRequest(index) }
        await expectSettled(first.stack.tracker)
        await first.engine.stop()
        if losingResend { fake.addFault(.once(matcher, .loseResponse)) }
        let second = try await start()
        #expect(await second.engine.queue().isEmpty)
        return second.stack.ui.context
      }

      /// Starts a life, saves `edit` in it, lets the backend apply it with its answer held (or,
      /// with `.park`, holds the request itself, which never reaches the server), then, offline,
      /// saves `since` and lets `other` change the backend, and ends the life with the answer
      /// unheard.
      @MainActor
      func die(
        afterUnheard edit: (ModelContext) throws -> Void, holding matcher: RequestMatcher,
        with fault: Fault = .holdAnswer, thenSaving since: (ModelContext) throws -> Void,
        other: () -> Void = {}
      ) async throws {
        let first = try await start()
        let ui = first.stack.ui.context
        fake.addFault(.once(matcher, fault))
        try edit(ui)
        try ui.save()
        await fake.waitForParkedRequests(1)
        await first.engine.setOnline(false)
        try since(ui)
        try ui.save()
        other()
        for index in fake.parkedRequests { fake.dropParkedRequest(index) }
        await expectSettled(first.stack.tracker)
        await first.engine.stop()
      }

      /// The idempotency keys of the requests of `route` the backend received.
      func keys(of route: Route) -> Set<String> {
        Set(
          fake.journal.filter { $0.route == route }.compactMap {
            $0.request.headers["idempotency-key"]
          })
      }
    }

    /// How the life that dies hears the news, and how the next life's first resend fares.
    enum RenameCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
      /// The dying life reads the news of Grace and of Hopper.
      case readsBoth
      /// As `readsBoth`, and the next life's first resend loses its answer too.
      case losesResendToo
      /// The dying life reads only the news of Grace; the next life fetches the self user
      /// (Hopper) before it reads the news of Hopper.
      case fetchesLaterFirst

      var testDescription: String { rawValue }
    }

    @Test(
      "A rename of the self user applied before the app died, and overtaken by another device's rename, is not applied again by the next life",
      arguments: RenameCase.allCases)
    func selfRename(_ rename: RenameCase) async throws {
      // given: Ada renames herself to Grace; the backend applies it and the answer is never
      // heard; her other device renames her to Hopper; this device dies
      let device = Device()
      let me = device.me

      // when
      let ui = try await device.restart(
        afterUnheard: { try $0.update(User.self, id: me) { $0.name = "Grace" } },
        holding: RequestMatcher("PUT", "/self"), pullingFirst: rename == .fetchesLaterFirst,
        losingResend: rename == .losesResendToo,
        then: { device.fake.renameUserRemotely(me, to: "Hopper") })

      // then
      #expect(device.keys(of: .updateSelf).count == 1)
      #expect(device.fake.user(me)?.name == "Hopper")
      #expect(ui.object(User.self, id: me)?.name == "Hopper")
    }

    @Test(
      "A rename applied before the app died goes again alone under its key when the accent was saved since; the accent follows on its own and another device's later rename stands"
    )
    func renameResentApartFromAccentSavedSince() async throws {
      // given: Ada renames herself to Grace; the backend applies it and the answer is never
      // heard; offline, she changes her accent; her other device renames her to Hopper; this
      // device dies
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      try await device.die(
        afterUnheard: { try $0.update(User.self, id: me) { $0.name = "Grace" } },
        holding: RequestMatcher("PUT", "/self"),
        thenSaving: { try $0.update(User.self, id: me) { $0.accentID = 4 } },
        other: { fake.renameUserRemotely(me, to: "Hopper") })

      // when
      let second = try await device.start()

      // then
      let names = fake.journal.compactMap { entry -> String? in
        guard case .success(.updateSelf(let update)) = entry.request.endpoint else { return nil }
        return update.name
      }
      #expect(names == ["Grace", "Grace"])
      #expect(device.keys(of: .updateSelf).count == 2)
      #expect(fake.user(me)?.name == "Hopper")
      #expect(fake.user(me)?.accentID == 4)
      #expect(second.stack.ui.context.object(User.self, id: me)?.name == "Hopper")
    }

    @Test(
      "An acceptance applied before the app died, and overtaken by the contact's new request, is not applied again by the next life, which ends pending",
      arguments: [false, true])
    func acceptanceOvertakenByNewRequest(pullingFirst: Bool) async throws {
      // given: Bob asks to connect; the user accepts; the backend applies it and the answer is
      // never heard; Bob asks again, which puts the connection back to pending
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      let bob = fake.insertUser(name: "Bob")
      fake.requestConnectionRemotely(from: bob)

      // when
      let ui = try await device.restart(
        afterUnheard: {
          try $0.update(Connection.self, id: bob) { $0.status = .accepted }
        },
        holding: RequestMatcher("PUT", "/connections/*"), pullingFirst: pullingFirst,
        then: { fake.requestConnectionRemotely(from: bob) })

      // then
      #expect(device.keys(of: .updateConnection).count == 1)
      #expect(fake.connection(from: me, to: bob)?.status == .pending)
      #expect(ui.object(Connection.self, id: bob)?.status == .pending)
    }

    @Test(
      "An update applied before the app died goes first as it went, under its key, though the user saved one of its keys again since; the newer value follows on its own and another device's later rename stands"
    )
    func updateResentAsItWentAfterSavedAgain() async throws {
      // given: Ada renames herself to Grace with accent 4 in one save; the backend applies it
      // and the answer is never heard; offline, she changes the accent to 5; her other device
      // renames her to Hopper; this device dies
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      try await device.die(
        afterUnheard: {
          try $0.update(User.self, id: me) {
            $0.name = "Grace"
            $0.accentID = 4
          }
        }, holding: RequestMatcher("PUT", "/self"),
        thenSaving: { try $0.update(User.self, id: me) { $0.accentID = 5 } },
        other: { fake.renameUserRemotely(me, to: "Hopper") })

      // when
      let second = try await device.start()

      // then
      let updates = fake.journal.compactMap { entry -> SelfUpdate? in
        guard case .success(.updateSelf(let update)) = entry.request.endpoint else { return nil }
        return update
      }
      #expect(updates.map(\.name) == ["Grace", "Grace", nil])
      #expect(updates.map(\.accentID) == [4, 4, 5])
      #expect(device.keys(of: .updateSelf).count == 2)
      #expect(fake.user(me)?.name == "Hopper")
      #expect(fake.user(me)?.accentID == 5)
      #expect(second.stack.ui.context.object(User.self, id: me)?.name == "Hopper")
    }

    @Test(
      "A member addition applied before the app died goes first as it went, under its key, though the user changed the members again since; a later removal by another member stands"
    )
    func memberAdditionResentAsItWentAfterChangedAgain() async throws {
      // given: the user adds Bob to Lunch; the backend adds him and the answer is never heard;
      // offline, the user adds Cleo too; Ann removes Bob; this device dies
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      let ann = fake.insertUser(name: "Ann")
      let bob = fake.insertUser(name: "Bob")
      let cleo = fake.insertUser(name: "Cleo")
      for user in [ann, bob, cleo] { fake.connectRemotely(with: user) }
      let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      try await device.die(
        afterUnheard: {
          try $0.update(Conversation.self, id: lunch) { $0.participantIDs.insert(bob) }
        }, holding: RequestMatcher("POST", "/conversations/*/members"),
        thenSaving: {
          try $0.update(Conversation.self, id: lunch) { $0.participantIDs.insert(cleo) }
        }, other: { fake.removeMembersRemotely([bob], from: lunch, by: ann) })

      // when
      let second = try await device.start()

      // then
      let additions = fake.journal.compactMap { entry -> [UUID]? in
        guard case .success(.addMembers(_, let list)) = entry.request.endpoint else { return nil }
        return list.users
      }
      #expect(additions == [[bob], [bob], [cleo]])
      #expect(device.keys(of: .addMembers).count == 2)
      #expect(Set(fake.members(of: lunch)) == [me, ann, cleo])
      #expect(
        second.stack.ui.context.object(Conversation.self, id: lunch)?.participantIDs
          == [me, ann, cleo])
    }

    @Test(
      "A call an earlier life sent that the backend refuses when the next life sends it again goes no more; the user's later rename follows once"
    )
    func refusedEarlierLifeCallGoesNoMore() async throws {
      // given: the user renames Lunch to Brunch; the request goes and never reaches the
      // server; offline, the user renames it to Supper; this device dies; the backend will
      // refuse the next rename once
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      let ann = fake.insertUser(name: "Ann")
      fake.connectRemotely(with: ann)
      let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      let rename = RequestMatcher("PUT", "/conversations/*")
      try await device.die(
        afterUnheard: { try $0.update(Conversation.self, id: lunch) { $0.name = "Brunch" } },
        holding: rename, with: .park,
        thenSaving: { try $0.update(Conversation.self, id: lunch) { $0.name = "Supper" } })
      fake.addFault(.once(rename, .status(400)))
      expectLoggedError(containing: "was reverted")

      // when
      let second = try await device.start()

      // then
      let names = fake.journal.compactMap { entry -> String? in
        guard case .success(.renameConversation(_, let body)) = entry.request.endpoint else {
          return nil
        }
        return body.name
      }
      #expect(names == ["Brunch", "Brunch", "Supper"])
      #expect(fake.conversation(lunch)?.name == "Supper")
      #expect(second.stack.ui.context.object(Conversation.self, id: lunch)?.name == "Supper")
      #expect(await second.engine.queue().isEmpty)
    }

    /// Whom Ann removes from Lunch while this device's addition of Bob is unanswered, and who
    /// is in it at the end.
    enum Removal: String, CaseIterable, Sendable, CustomTestStringConvertible {
      /// Bob himself: the addition gives way to the later removal.
      case bob
      /// Cleo: the addition stands beside the removal.
      case cleo

      var testDescription: String { "Ann removes \(rawValue)" }
    }

    @Test(
      "A member addition applied before the app died is not applied again by the next life, and gives way only to a later change of that member",
      arguments: Removal.allCases)
    func memberAddition(_ removal: Removal) async throws {
      // given: the user adds Bob to Lunch; the backend adds him and the answer is never heard;
      // Ann removes Bob or Cleo; this device reads both news and dies
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      let ann = fake.insertUser(name: "Ann")
      let bob = fake.insertUser(name: "Bob")
      let cleo = fake.insertUser(name: "Cleo")
      for user in [ann, bob, cleo] { fake.connectRemotely(with: user) }
      let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me, cleo])
      let removed = removal == .bob ? bob : cleo

      // when
      let ui = try await device.restart(
        afterUnheard: {
          try $0.update(Conversation.self, id: lunch) { $0.participantIDs.insert(bob) }
        },
        holding: RequestMatcher("POST", "/conversations/*/members"),
        then: { fake.removeMembersRemotely([removed], from: lunch, by: ann) })

      // then
      let expected: Set<UUID> = removal == .bob ? [me, ann, cleo] : [me, ann, bob]
      #expect(device.keys(of: .addMembers).count == 1)
      #expect(fake.journal.allSatisfy { ($0.status ?? 200) < 400 })
      #expect(Set(fake.members(of: lunch)) == expected)
      #expect(ui.object(Conversation.self, id: lunch)?.participantIDs == expected)
    }

    @Test(
      "A leave applied before the app died is not applied again by the next life, and another member's later return stands, whether the news of both are read or forgotten",
      arguments: [false, true])
    func leaveAppliedBeforeDeath(newsForgotten: Bool) async throws {
      // given: the user leaves Lunch; the backend applies it and the answer is never heard;
      // Ann adds the user back; this device dies without reading the news, which the backend
      // may forget
      let device = Device()
      let (fake, me) = (device.fake, device.me)
      let ann = fake.insertUser(name: "Ann")
      fake.connectRemotely(with: ann)
      let lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
      try await device.die(
        afterUnheard: { try $0.delete(Conversation.self, id: lunch) },
        holding: RequestMatcher("DELETE", "/conversations/*/members"), thenSaving: { _ in },
        other: { fake.addMembersRemotely([me], to: lunch, by: ann) })
      if newsForgotten { fake.expireNotifications(keepingLast: 0) }

      // when
      let second = try await device.start()

      // then
      #expect(device.keys(of: .removeMembers).count == 1)
      #expect(Set(fake.members(of: lunch)) == [me, ann])
      #expect(
        second.stack.ui.context.object(Conversation.self, id: lunch)?.participantIDs == [me, ann])
      #expect(await second.engine.queue().isEmpty)
    }
  }
}
