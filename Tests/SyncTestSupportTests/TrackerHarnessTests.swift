import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import Models
import ModelsTestSupport
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing
import UserParsing

@Suite("TrackerHarness", .tags(.testSupport, .sync), .courier(timeBudget: .seconds(5)))
@MainActor
struct TrackerHarnessTests {
  @Test("A lost answer leaves the change applied on the backend and still pending here")
  func loseAnswer() async throws {
    // given
    let harness = TrackerHarness()
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let request = try #require(await harness.next())

    // when
    await harness.loseAnswer(to: request)

    // then
    #expect(harness.fake.user(harness.me.id)?.name == "Ada")
    #expect(await harness.localChanges(User.self).keys(of: harness.me.id) == [.name])
    #expect(await harness.queue(at: .zero).retrying.map(\.item.object) == [harness.me.reference])
  }

  @Test("answerAll hands out and answers every request until none is left")
  func answerAll() async throws {
    // given
    let harness = TrackerHarness()
    let group = harness.make.conversation(name: "Lunch", creator: harness.me)
    try harness.insert([group, harness.make.message(in: group, from: harness.me, text: "Hi")])

    // when
    let answered = await harness.answerAll()

    // then
    #expect(answered.map(\.endpoint.route) == [.createConversation, .postMessage])
    #expect(harness.fake.conversation(group.id)?.name == "Lunch")
    #expect(harness.fake.messages(in: group.id).map(\.text) == ["Hi"])
    #expect(await harness.queue().isIdle)
  }

  @Test("Completing a request records an issue when the sync context cannot save afterwards")
  func completeReportsSaveFailure() async throws {
    // given
    let harness = TrackerHarness(
      upstream: UpstreamObjectSync(strategies: [OrphanWritingStrategy()]))
    try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
    let request = try #require(await harness.next())

    // when, then
    await withKnownIssue {
      await harness.complete(request, .success(.noContent))
    } matching: { issue in
      issue.mentions("did not save")
    }
  }
}

/// Pushes the self user's name, and on success writes a message into a conversation that does
/// not exist, so the sync context's next save fails validation.
private struct OrphanWritingStrategy: UpstreamStrategy {
  var pushableKeys: Set<User.Key> { [.name] }

  func action(for change: UpstreamChange<User>, in context: ModelContext) -> UpstreamAction<User> {
    .send(
      .updateSelf(SelfUpdate(name: change.object?.name)), carrying: [.name], sent: change.object)
  }

  // Inserted as an edit of this device's: the server's own values are taken unchecked.
  func didSucceed(_ sent: SentChange<User>, response: EndpointResponse, in context: ModelContext) {
    try? context.insert(
      Message(
        nonce: context.makeID(), conversationID: context.makeID(), senderID: sent.id, text: "?",
        localTime: Date(timeIntervalSince1970: 0)))
  }
}
