import Foundation
import Models
import SyncStrategies
import SyncTestSupport
import TestSupport
import Testing

extension UpstreamObjectSyncTests {
  /// The serials of an object's saves are what its requests in flight compare against; they are
  /// kept while one is out, and forgotten once none is, so they do not grow with every object
  /// the user ever edited.
  @Suite("Edit serials")
  @MainActor
  struct EditSerials {
    @Test("An object's edit serials stay while another request of it is out, and go with the last")
    func forgottenWithTheLastRequest() async throws {
      // given: a rename in flight, then an accent change in a request of its own
      let harness = TrackerHarness()
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
      let rename = try #require(await harness.next())
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.accentID = 5 } }
      let accent = try #require(await harness.next())

      // when
      await harness.complete(rename, .success(.noContent))
      let whileAccentIsOut = await harness.localChanges(User.self).lastEdits[harness.me.id]
      await harness.complete(accent, .success(.noContent))

      // then
      #expect(whileAccentIsOut?.keys.sorted() == [.name, .accentID].sorted())
      #expect(await harness.localChanges(User.self).lastEdits[harness.me.id] == nil)
      #expect(await harness.localChanges(User.self).isEmpty)
    }

    @Test("A request whose answer was lost keeps its object's edit serials until it goes again")
    func keptForALostAnswer() async throws {
      // given
      let harness = TrackerHarness()
      try harness.save { try $0.update(User.self, id: harness.me.id) { $0.name = "Ada" } }
      let rename = try #require(await harness.next())

      // when
      await harness.complete(
        rename, .temporary(BackendFailure(responseClass: .temporary, status: 503)))

      // then
      #expect(await harness.localChanges(User.self).lastEdits[harness.me.id] == [.name: 1])
    }

    @Test("A member's edit serials go with the object's once its last request is answered")
    func memberSerialsForgotten() async throws {
      // given
      let harness = TrackerHarness()
      let group = try await renameWhileAddingAnn(in: harness)
      let requests = await harness.drain()

      // when
      for request in requests { await harness.complete(request, .success(.noContent)) }

      // then
      let changes = await harness.localChanges(Conversation.self)
      #expect(changes.lastEdits[group.id] == nil)
      #expect(changes.lastElementEdits[group.id] == nil)
    }
  }
}
