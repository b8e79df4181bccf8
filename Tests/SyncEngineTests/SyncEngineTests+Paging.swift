import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import JSON
import Models
import ModelsTestSupport
import Seams
import SyncEngine
import SyncStrategies
import TestSupport
import Testing
import Transport

extension SyncEngineTests {
  /// A backend whose pages do not move on, or cannot be read, neither keeps a pull asking
  /// without end nor loses what it could not read without a word.
  ///
  /// A pull reads pages until the backend says it has no more, each after the last element of
  /// the one before.
  @Suite("Pages that do not add up")
  @MainActor
  struct Paging {
    /// An engine over a fake with Ann connected and two groups with her, whose answers pass
    /// through a ``RewritingTransport``, off until the engine has started.
    struct Rig {
      let events = Recorder<SyncEngineEvent>()
      let fake = FakeBackend()
      let stack = ModelStack.forTesting()
      let transport: RewritingTransport
      let engine: SyncEngine
      let me: UUID
      let ann: UUID
      let lunch: UUID
      let team: UUID

      init(
        rewrite: @escaping @Sendable (Endpoint, JSONValue) -> JSONValue?,
        replace: @escaping @Sendable (Endpoint) -> TransportResponse? = { _ in nil }
      ) async {
        me = fake.insertSelfUser(name: "Me")
        ann = fake.insertUser(name: "Ann")
        fake.connectRemotely(with: ann)
        lunch = fake.createGroupRemotely(name: "Lunch", by: ann, members: [me])
        team = fake.createGroupRemotely(name: "Team", by: ann, members: [me])
        var transport = RewritingTransport(base: fake.transport, limit: 10, rewrite: rewrite)
        transport.replace = replace
        self.transport = transport
        engine = SyncEngine(stack: stack, transport: transport, onEvent: events.record)
        await engine.start()
        await expectSettled(stack.tracker)
        transport.isOn.withLock { $0 = true }
      }

      /// The problems reported so far.
      var problems: [SyncProblem] {
        events.elements.compactMap { if case .problem(let problem) = $0 { problem } else { nil } }
      }

      /// How many times the engine called `GET` on `path` so far.
      func gets(_ path: String) -> Int { fake.requests("GET", path).count }

      /// The name the sync context holds for `conversation`, `nil` if it holds none.
      func name(of conversation: UUID) async -> String? {
        await stack.sync.perform { $0.object(Conversation.self, id: conversation)?.name }
      }
    }

    @Test("A news page that says the backend has more but moves no further ends the pull")
    func newsPageThatDoesNotAdvance() async throws {
      // given
      let rig = await Rig { endpoint, json in
        guard case .getNotifications = endpoint else { return nil }
        return json.setting("has_more", to: true)
      }
      _ = rig.fake.renameRemotely(rig.team, to: "Crew", by: rig.ann)
      let asked = rig.gets("/notifications")
      expectLoggedError(containing: "did not move past")

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(rig.gets("/notifications") - asked == 2)
      #expect(await rig.name(of: rig.team) == "Crew")
      let cursor = await rig.engine.lastNotificationID
      #expect(cursor == rig.fake.notifications.last?.id)
      #expect(rig.problems == [.downstream(.pageDidNotAdvance(.getNotifications, after: cursor))])
    }

    @Test("A news page that leads back to where this pull has been ends it, and the cursor stays")
    func newsPagesInACycle() async throws {
      // given: Ann renames both groups; the backend pages them one at a time, then the first
      // again, each page saying it has more
      let news = Locked<[JSONValue]>([])
      let rig = await Rig { endpoint, json in
        guard case .getNotifications(let since, _) = endpoint else { return nil }
        let elements = news.withLock { news in
          if news.isEmpty { news = json["notifications"]?.arrayValue ?? [] }
          return news
        }
        guard elements.count == 2 else { return nil }
        let first = elements[0]["id"]?.stringValue
        let next = since?.lowercasedText == first ? elements[1] : elements[0]
        return json.setting("notifications", to: [next]).setting("has_more", to: true)
      }
      _ = rig.fake.renameRemotely(rig.lunch, to: "Brunch", by: rig.ann)
      _ = rig.fake.renameRemotely(rig.team, to: "Crew", by: rig.ann)
      let asked = rig.gets("/notifications")
      expectLoggedError(containing: "did not move past")

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(rig.gets("/notifications") - asked == 3)
      let last = rig.fake.notifications.last?.id
      #expect(await rig.engine.lastNotificationID == last)
      #expect(await rig.name(of: rig.lunch) == "Brunch")
      #expect(await rig.name(of: rig.team) == "Crew")
      #expect(rig.problems == [.downstream(.pageDidNotAdvance(.getNotifications, after: last))])
    }

    @Test(
      "A news page whose last notification cannot be read moves past it and reports it once"
    )
    func unreadableLastNotification() async throws {
      // given: Ann renames both groups; the second rename comes unreadable
      let rig = await Rig { endpoint, json in
        guard case .getNotifications = endpoint,
          let count = json["notifications"]?.arrayValue?.count, count > 0
        else { return nil }
        return json.changingElement(count - 1, of: "notifications") {
          $0.setting("payload", to: "not a list")
        }
      }
      _ = rig.fake.renameRemotely(rig.lunch, to: "Brunch", by: rig.ann)
      _ = rig.fake.renameRemotely(rig.team, to: "Crew", by: rig.ann)
      expectLoggedError(containing: "unreadable")

      // when
      await rig.engine.pullNotifications()
      await rig.engine.pullNotifications()

      // then
      #expect(await rig.engine.lastNotificationID == rig.fake.notifications.last?.id)
      #expect(await rig.name(of: rig.lunch) == "Brunch")
      #expect(await rig.name(of: rig.team) == "Team")
      #expect(rig.problems.count == 1)
      guard
        case .downstream(.unreadableElements(.getNotifications, let elements)) = rig.problems.first
      else {
        Issue.record("expected unreadable notifications, got \(rig.problems)")
        return
      }
      #expect(elements.map(\.index) == [1])
      #expect(elements.map(\.id) == [rig.fake.notifications.last?.id])
    }

    /// Ways a backend's list pages can fail to move on while saying they have more.
    enum StuckList: String, CaseIterable, CustomTestStringConvertible {
      /// A page with nothing in it.
      case empty
      /// The first page, whatever the page asked for.
      case firstPageAgain

      var testDescription: String { rawValue }

      /// Rewrites an answer to `GET /conversations`, given the fake's first page.
      func rewrite(_ endpoint: Endpoint, _ json: JSONValue, firstPage: Locked<JSONValue?>)
        -> JSONValue?
      {
        guard case .getConversations(let paging) = endpoint else { return nil }
        switch self {
        case .empty:
          return json.setting("conversations", to: []).setting("has_more", to: true)
        case .firstPageAgain:
          let first = firstPage.withLock { first in
            if paging.start == nil { first = json }
            return first ?? json
          }
          return first.setting("has_more", to: true)
        }
      }
    }

    @Test(
      "A catch-up whose conversation list says it has more but moves no further changes nothing",
      arguments: StuckList.allCases)
    func stuckListDuringCatchUp(_ stuck: StuckList) async throws {
      // given: Ann removed the self user from Lunch, and the backend forgot the news
      let firstPage = Locked<JSONValue?>(nil)
      let rig = await Rig { endpoint, json in
        stuck.rewrite(endpoint, json, firstPage: firstPage)
      }
      _ = rig.fake.removeMembersRemotely([rig.me], from: rig.lunch, by: rig.ann)
      rig.fake.expireNotifications(keepingLast: 0)
      let stale = await rig.engine.lastNotificationID
      let asked = rig.gets("/conversations")
      expectLoggedError(containing: "did not move past")

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(rig.gets("/conversations") - asked <= 2)
      #expect(await rig.engine.lastNotificationID == stale)
      #expect(await rig.name(of: rig.lunch) == "Lunch")
      #expect(await rig.name(of: rig.team) == "Team")
      let start = stuck == .empty ? nil : rig.team
      #expect(rig.problems == [.downstream(.pageDidNotAdvance(.getConversations, after: start))])
    }

    @Test("A conversation the catch-up cannot read is reported, and the catch-up drops nothing")
    func unreadableConversationDuringCatchUp() async throws {
      // given: Ann removed the self user from Lunch and the backend forgot the news; Team
      // comes unreadable in the list
      let unreadable = Locked<UUID?>(nil)
      let rig = await Rig { endpoint, json in
        guard case .getConversations = endpoint, let target = unreadable.value,
          let index = json["conversations"]?.arrayValue?.firstIndex(where: {
            $0["id"]?.stringValue == target.lowercasedText
          })
        else { return nil }
        return json.changingElement(index, of: "conversations") { $0.setting("name", to: 42) }
      }
      unreadable.withLock { $0 = rig.team }
      _ = rig.fake.removeMembersRemotely([rig.me], from: rig.lunch, by: rig.ann)
      rig.fake.expireNotifications(keepingLast: 0)
      expectLoggedError(containing: "unreadable")

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(await rig.name(of: rig.lunch) == "Lunch")
      #expect(await rig.engine.lastNotificationID == rig.fake.notifications.last?.id)
      guard
        case .downstream(.unreadableElements(.getConversations, let elements)) = rig.problems.first,
        rig.problems.count == 1
      else {
        Issue.record("expected one unreadable conversation, got \(rig.problems)")
        return
      }
      #expect(elements.map(\.id) == [rig.team])
    }

    @Test("A backend that forgets every cursor is caught up with once per pull, not without end")
    func cursorForgottenAgain() async throws {
      // given: every cursor is answered 404, though the backend still holds its news
      let rig = await Rig(
        rewrite: { _, _ in nil },
        replace: { endpoint in
          guard case .getNotifications(since: _?, _) = endpoint else { return nil }
          return TransportResponse(status: 404)
        })
      let asked = (news: rig.gets("/notifications"), last: rig.gets("/notifications/last"))
      expectLoggedError(containing: "does not know notification")

      // when
      await rig.engine.pullNotifications()

      // then
      #expect(rig.gets("/notifications/last") - asked.last == 1)
      #expect(rig.transport.rewritten.value == 2)
      // The catch-up read the news the backend holds from the start, for their messages.
      #expect(rig.gets("/notifications") - asked.news == 1)
      let cursor = try #require(await rig.engine.lastNotificationID)
      #expect(cursor == rig.fake.notifications.last?.id)
      #expect(rig.problems == [.downstream(.unknownSince(cursor))])
    }
  }
}
