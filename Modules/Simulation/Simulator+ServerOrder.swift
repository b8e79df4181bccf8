import ConnectionParsing
import CourierAPI
import FakeBackend
import Foundation
import Models

extension Simulator {
  /// Reads what the server applied since the last call, in the server's order, and checks the
  /// two rules of that order: the server never applies the same change of the app twice, and
  /// never applies a change of the app again over another device's later change.
  ///
  /// A request the server answered without applying it (a repeat of an idempotency key) is
  /// passed over; nothing else is waived, not even a change whose answer was lost or whose app
  /// was killed before it heard it, since such a change goes again under its first key.
  func readServerApplications(at step: Int?) -> InvariantViolation? {
    // A call carries the changes of the saves before it first went: every step saves first,
    // and calls sent since the last check went after the last step's save.
    for (call, request) in log.takeSentCalls() where editsWhenFirstSent[call] == nil {
      guard case .success(let endpoint) = FakeRequest(request).endpoint else { continue }
      editsWhenFirstSent[call] = Dictionary(
        carriedChanges(endpoint).map { ($0.0, lastEdits.editCounts[$0.0] ?? 0) },
        uniquingKeysWith: { first, _ in first })
    }
    for entry in fake.journal(from: nextJournalIndex) where !readJournal.contains(entry.index) {
      readJournal.insert(entry.index)
      guard case .success(let endpoint) = entry.request.endpoint, endpoint.changesState,
        entry.succeeded
      else { continue }
      let call = entry.request.headers[Endpoint.idempotencyKeyHeader.lowercased()]
      if let call {
        guard appliedIdempotencyKeys.insert(call).inserted else { continue }
      }
      for (key, value) in carriedChanges(endpoint) {
        let edits = call.flatMap { editsWhenFirstSent[$0]?[key] } ?? lastEdits.editCounts[key] ?? 0
        let breach = applied.clientApplied(key, value, edits: edits)
        switch breach {
        case .appliedTwice?:
          return InvariantViolation(
            invariant: .appliedTwice, step: step, detail: breach?.description ?? "")
        case .overwroteLaterChange?:
          return InvariantViolation(
            invariant: .overwroteLaterChange, step: step, detail: breach?.description ?? "")
        case nil:
          break
        }
      }
    }
    while readJournal.remove(nextJournalIndex) != nil { nextJournalIndex += 1 }
    figures.exemptions =
      shownWhileSentAgain > 0 ? ["older value shown while sent again": shownWhileSentAgain] : [:]
    return nil
  }

  /// Records that another device or user changed `key` on the server, which the user's last
  /// edit of it no longer speaks for.
  func changedElsewhere(_ key: LastEdits.Key) {
    lastEdits.forget(key)
    applied.remoteApplied(key)
  }

  /// The values `endpoint` sets for the keys the simulator follows, written as `LastEdits`
  /// writes them.
  private func carriedChanges(_ endpoint: Endpoint) -> [(LastEdits.Key, String)] {
    switch endpoint {
    case .updateSelf(let update):
      return (update.name.map { [(LastEdits.Key.selfName, $0)] } ?? [])
        + (update.accentID.map { [(LastEdits.Key.accent, "\($0)")] } ?? [])
    case .renameConversation(let id, let rename):
      return [(.groupName(id), rename.name)]
    case .updateConnection(let user, let update):
      return [(.connection(user), "\(Connection.Status(backendValue: update.status.rawValue))")]
    case .addMembers(let id, let list):
      return list.users.filter { $0 != me }.map { (.member($0, group: id), "in") }
    case .removeMembers(let id, let list):
      // The self user among them is a leave.
      return list.users.map { (.member($0, group: id), "out") }
    default:
      return []
    }
  }
}
