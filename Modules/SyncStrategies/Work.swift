import Foundation
import Models

/// One local change the tracker could send: which object, what kind, and where it goes in line.
struct Work: Sendable {
  let object: ObjectReference
  let kind: UpstreamChangeKind
  let keys: KeySet
  let track: Int
  let order: Double

  var item: SyncQueueSnapshot.Item {
    SyncQueueSnapshot.Item(object: object, kind: kind, keys: keys)
  }
}

/// What other objects' changes need to know about an object with local changes.
struct ObjectState: Sendable {
  /// Its insert has not been acknowledged yet.
  var pendingInsert = false
  /// It has a change pending or in flight.
  var hasWork = false
  /// Its change was refused for good.
  var failure: PushFailure?
}

/// What one pass over the change log found.
struct Survey: Sendable {
  var states: [ObjectReference: ObjectState] = [:]
  var work: [Work] = []
  var failed: [SyncQueueSnapshot.Failure] = []
}

/// The outcome of preparing one piece of work.
enum Preparation: Sendable {
  /// Send this; `leftover` says keys of the change remain for a later request.
  case request(UpstreamRequest, leftover: Bool)
  /// Nothing to send: the change was local only, and is off the log.
  case nothing
  /// The request could not be built; the change is marked failed.
  case failed
}
