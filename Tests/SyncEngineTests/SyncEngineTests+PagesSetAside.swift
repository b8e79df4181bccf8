import FakeBackend
import Foundation
import Models
import SyncEngine
import SyncTestSupport
import TestSupport
import Testing

extension SyncEngineTests {
  /// A pull whose pages of news keep coming back older than answers applied while they were
  /// out gives up after ``SyncEngine/pagesSetAsideForAnswers`` of them, and the engine pulls
  /// again once no answer can overtake a page.
  @Suite("Pages set aside for answers")
  @MainActor
  struct PagesSetAside {
    /// How the last of the answers that overtook the pull's pages stands when the pull ends.
    enum LastAnswer: String, CaseIterable, CustomTestStringConvertible {
      /// Every answer was applied: nothing is out that could overtake another page.
      case applied = "every answer applied"
      /// A rename was sent after the last page went and is still out.
      case out = "a rename still out"

      var testDescription: String { rawValue }
    }

    @Test(
      "A pull that set its pages aside for answers is made up once no answer is out, and reads the news",
      arguments: LastAnswer.allCases)
    func madeUpOnceNoAnswerIsOut(last: LastAnswer) async throws {
      // given: Ann adds the self user to a group; each of the pull's pages is held on its way
      // back while a rename of the self user goes and is answered
      let world = try await SyncWorld.start()
      let ann = world.fake.insertUser(name: "Ann")
      let group = world.fake.createGroupRemotely(name: "Lunch", by: ann, members: [])
      try world.save { try $0.update(User.self, id: world.me) { $0.name = "Name 0" } }
      await world.settle()
      world.fake.addFault(
        .times(
          SyncEngine.pagesSetAsideForAnswers, RequestMatcher("GET", "/notifications"), .holdAnswer))
      let pull = Task { await world.engine.pullNotifications() }
      for round in 1...SyncEngine.pagesSetAsideForAnswers {
        await world.fake.waitForParkedRequests(1)
        try world.save { try $0.update(User.self, id: world.me) { $0.name = "Name \(round)" } }
        await world.settle()
        if last == .out && round == SyncEngine.pagesSetAsideForAnswers {
          world.fake.addFault(.once(RequestMatcher("PUT", "/self"), .park))
          try world.save { try $0.update(User.self, id: world.me) { $0.name = "Last" } }
          await world.fake.waitForParkedRequests(2)
        }
        if let page = world.fake.parkedRequests.first { world.fake.releaseParkedRequest(page) }
      }
      await pull.value
      await world.settle(allowing: .stuckWork)
      let pagesWhileOut = world.fake.requests("GET", "/notifications").count

      // when
      world.fake.releaseAllParkedRequests()
      await world.settle()

      // then: the start's page, the three set aside, and the pull that made them up
      #expect(pagesWhileOut == (last == .out ? 4 : 5))
      #expect(world.fake.requests("GET", "/notifications").count == 5)
      #expect(world.ui.object(Conversation.self, id: group)?.name == "Lunch")
      #expect(world.selfUser?.name == (last == .out ? "Last" : "Name 3"))
    }
  }
}
