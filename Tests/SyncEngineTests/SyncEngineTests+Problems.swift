import CourierAPI
import FakeBackend
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import TestSupport
import Testing

extension SyncEngineTests {
  /// What the engine could not apply reaches the app as an event and reaches the log at the
  /// level it deserves, so `.failsOnLoggedErrors` fails a test that meets it unannounced.
  @Suite("Problems an app must see")
  @MainActor
  struct Problems {
    /// An engine started against a fresh fake, with its events recorded.
    struct Running {
      let events = Recorder<SyncEngineEvent>()
      let fake: FakeBackend
      let stack = ModelStack.forTesting()
      let engine: SyncEngine

      init() async {
        fake = FakeBackend()
        fake.insertSelfUser()
        engine = SyncEngine(stack: stack, transport: fake.transport, onEvent: events.record)
        await engine.start()
        await expectSettled(stack.tracker)
      }

      /// The problems reported so far.
      var problems: [SyncProblem] {
        events.elements.compactMap { if case .problem(let problem) = $0 { problem } else { nil } }
      }
    }

    @Test("An unreadable notification page is reported and logged as an error")
    func unreadablePage() async throws {
      // given
      let running = await Running()
      running.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .malformedBody))
      expectLoggedError(containing: "could not apply")

      // when
      await running.engine.pullNotifications()

      // then
      let problem = try #require(running.problems.first)
      #expect(!problem.isTransient)
      guard case .downstream(.payload) = problem else {
        Issue.record("expected a payload problem, got \(problem)")
        return
      }
    }

    @Test("A news page that could not be read is read again when the app comes back online")
    func unreadablePageMadeUpOnline() async throws {
      // given: Ann adds the self user to a group; the page that tells of it comes unreadable
      let running = await Running()
      let ann = running.fake.insertUser(name: "Ann")
      let me = try #require(running.fake.selfUserID)
      let group = running.fake.createGroupRemotely(name: "Lunch", by: ann, members: [])
      running.fake.addMembersRemotely([me], to: group, by: ann)
      running.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .malformedBody))
      expectLoggedError(containing: "could not apply")
      await running.engine.pullNotifications()
      await running.engine.setOnline(false)

      // when
      await running.engine.setOnline(true)

      // then
      await expectSettled(running.stack.tracker)
      #expect(running.stack.ui.context.object(Conversation.self, id: group)?.name == "Lunch")
    }

    @Test("A backend that is briefly unavailable is only a warning, retried by the next pull")
    func transientStatus() async throws {
      // given
      let running = await Running()
      running.fake.addFault(.always(RequestMatcher("GET", "/notifications"), .status(503)))

      // when
      await running.engine.pullNotifications()

      // then
      let problem = try #require(running.problems.first)
      #expect(problem.isTransient)
      #expect(LogRecorder.current?.entries.contains { $0.level == .warning } == true)
    }

    @Test("A problem nobody declared fails the test that met it")
    func undeclaredFails() async throws {
      // given
      let recorder = LogRecorder()
      let failures = FailureRecorder()

      // when
      await CourierLogger.$sink.withValue(recorder) {
        let running = await Running()
        running.fake.addFault(.once(RequestMatcher("GET", "/notifications"), .malformedBody))
        await running.engine.pullNotifications()
      }

      // then
      withKnownIssue {
        recorder.verify(failureRecorder: failures)
      } matching: { issue in
        issue.mentions("could not apply")
      }
    }

    @Test(
      "Each kind of problem has the level an app needs",
      arguments: [
        (SyncProblem.downstream(.status(.getNotifications, 503, nil)), true),
        (.downstream(.status(.getNotifications, 429, nil)), true),
        (.downstream(.status(.getNotifications, 408, nil)), true),
        (.downstream(.status(.getNotifications, 401, nil)), false),
        (.downstream(.status(.getSelf, 404, nil)), false),
        (.save(.store("disk full")), false),
      ])
    func transience(problem: SyncProblem, transient: Bool) {
      // when
      let isTransient = problem.isTransient

      // then
      #expect(isTransient == transient)
    }
  }
}
