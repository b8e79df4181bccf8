import CourierAPI
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import TestSupport
import Testing
import Transport
import UserParsing

extension SyncEngineTests {
  /// A 401 pauses the engine until the app signs its user in again, and gives nothing up.
  ///
  /// It says nothing about the change it answered: the backend did not know who asked.
  @Suite("When the backend refuses the credentials")
  @MainActor
  struct SignedOut {
    /// An engine on a manual clock over a fresh fake, with its events recorded.
    struct Rig {
      let events = Recorder<SyncEngineEvent>()
      let clock = ManualTimeSource()
      let fake: FakeBackend
      let stack = ModelStack.forTesting()
      let engine: SyncEngine
      let me: UUID

      /// Whether the token provider has a token, for an engine over a `URLSessionTransport`.
      let signedIn = Locked(true)

      /// Starts the engine over the fake's own transport, or over a `URLSessionTransport` to the
      /// fake whose tokens come while `signedIn` says so.
      ///
      /// That transport keeps real time: a settle that moves the manual clock would otherwise
      /// expire its sends on the way.
      init(overURLSession: Bool = false) async {
        fake = FakeBackend(time: clock)
        me = fake.insertSelfUser(name: "Me")
        let transport: any TransportSession
        if overURLSession {
          let (session, baseURL) = fake.makeURLSession()
          transport = URLSessionTransport(
            configuration: .init(baseURL: baseURL), session: session,
            tokens: SwitchedTokens(signedIn: signedIn))
        } else {
          transport = fake.transport
        }
        engine = SyncEngine(stack: stack, transport: transport, time: clock, onEvent: events.record)
        await engine.start()
        await settle()
      }

      /// Lets the engine do all it can, moving the clock past its backoffs.
      @discardableResult
      func settle() async -> SyncQueueSnapshot {
        await engine.settle(
          advancing: clock, timeout: TimeoutScale.scaled(.seconds(5)),
          quietPeriod: TimeoutScale.scaled(.milliseconds(100)))
      }

      /// Renames the self user in the UI context and saves.
      @MainActor
      func renameSelf(to name: String) throws {
        let ui = stack.ui.context
        try ui.update(User.self, id: me) { $0.name = name }
        try ui.save()
      }

      /// How often the engine said the app must sign in again.
      var authenticationsNeeded: Int {
        events.elements.filter { if case .authenticationNeeded = $0 { true } else { false } }.count
      }

      /// The changes the engine said the backend refused.
      var refusals: [ObjectReference] {
        events.elements.compactMap {
          if case .changeRefused(let object, _, _) = $0 { object } else { nil }
        }
      }
    }

    /// How the backend comes not to know who asks.
    enum Refusal: String, CaseIterable, CustomTestStringConvertible {
      /// The backend answers 401 once.
      case answered401
      /// The token provider has no token, until the app signs in again.
      case noToken

      var testDescription: String { rawValue }

      /// How many times the change reaches the backend in all.
      var sends: Int { self == .answered401 ? 2 : 1 }

      /// Starts a rig that meets this refusal at its next request.
      func rig() async -> Rig {
        let rig = await Rig(overURLSession: self == .noToken)
        switch self {
        case .answered401: rig.fake.addFault(.once(RequestMatcher("PUT", "/self"), .status(401)))
        case .noToken: rig.signedIn.withLock { $0 = false }
        }
        return rig
      }
    }

    @Test(
      "A change the backend cannot tie to a user is kept, the engine pauses and says so, and it goes once resumed",
      arguments: Refusal.allCases)
    func changeWhileSignedOut(_ refusal: Refusal) async throws {
      // given
      let rig = await refusal.rig()
      try rig.renameSelf(to: "Maya")
      let paused = await rig.settle()
      let wasOnline = await rig.engine.isOnline
      rig.signedIn.withLock { $0 = true }

      // when
      await rig.engine.setOnline(true)
      let resumed = await rig.settle()

      // then
      #expect(!wasOnline)
      #expect(rig.authenticationsNeeded == 1)
      #expect(rig.refusals.isEmpty)
      #expect(paused.failed.isEmpty)
      #expect(rig.fake.requests("PUT", "/self").count == refusal.sends)
      #expect(resumed.isIdle)
      #expect(rig.fake.user(rig.me)?.name == "Maya")
    }

    @Test("A pull answered 401 pauses the engine and reports no problem")
    func pullAnswered401() async throws {
      // given
      let rig = await Rig()
      rig.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .status(401)))

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(await !rig.engine.isOnline)
      #expect(rig.authenticationsNeeded == 1)
      #expect(!rig.events.elements.contains { if case .problem = $0 { true } else { false } })
    }

    @Test("A pull answered 401 while offline still tells the app to sign in, once")
    func pullAnswered401WhileOffline() async throws {
      // given
      let rig = await Rig()
      await rig.engine.setOnline(false)
      rig.fake.addFault(.times(2, RequestMatcher("GET", "/notifications"), .status(401)))

      // when
      await rig.engine.pullNotifications()
      await rig.engine.pullNotifications()

      // then
      #expect(rig.authenticationsNeeded == 1)
      #expect(await rig.engine.isAwaitingSignIn)
    }

    @Test("Signed in again, the engine reads the news that a pull answered 401 missed")
    func pullAnswered401IsMadeUp() async throws {
      // given
      let rig = await Rig()
      let ann = rig.fake.insertUser(name: "Ann")
      let group = rig.fake.createGroupRemotely(name: "Lunch", by: ann, members: [])
      rig.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .status(401)))
      await rig.engine.pullNotifications()

      // when
      await rig.engine.setOnline(true)
      await rig.settle()

      // then
      #expect(rig.authenticationsNeeded == 1)
      #expect(rig.stack.ui.context.object(Conversation.self, id: group)?.name == "Lunch")
    }

    @Test("Going online again clears the wait for sign-in, and a new 401 tells the app again")
    func onlineAgainClearsTheWait() async throws {
      // given
      let rig = await Rig()
      rig.fake.addFault(.times(2, RequestMatcher("GET", "/notifications"), .status(401)))
      await rig.engine.pullNotifications()
      await rig.engine.setOnline(true)
      let clearedByOnline = await !rig.engine.isAwaitingSignIn

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(clearedByOnline)
      #expect(rig.authenticationsNeeded == 2)
      #expect(await rig.engine.isAwaitingSignIn)
    }

    @Test("Saying offline while the engine waits for sign-in keeps the wait, and online ends it")
    func offlineKeepsTheWait() async throws {
      // given
      let rig = await Rig()
      rig.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .status(401)))
      await rig.engine.pullNotifications()

      // when
      await rig.engine.setOnline(false)

      // then
      #expect(await rig.engine.isAwaitingSignIn)
      #expect(await !rig.engine.isOnline)
      await rig.engine.setOnline(true)
      #expect(await !rig.engine.isAwaitingSignIn)
      #expect(await rig.engine.isOnline)
    }
  }
}

/// A token provider that has a token while `signedIn` says so, and none otherwise.
struct SwitchedTokens: AccessTokenProvider {
  /// Why no token comes.
  struct SignedOut: Error {}

  let signedIn: Locked<Bool>

  func token() async throws -> String {
    guard signedIn.value else { throw SignedOut() }
    return "token"
  }

  func refreshToken(rejected: String) async throws -> String { try await token() }
}
