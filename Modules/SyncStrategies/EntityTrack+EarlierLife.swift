import CourierAPI
import Foundation
import HTTPRequest
import Models

extension EntityTrack {
  /// The call of an update of `id` that an earlier life of the app sent and never heard
  /// answered, with its idempotency key and the write-ahead record that keeps it, where the
  /// record's keys all still wait to be sent within `keys`.
  ///
  /// Such a call may already be applied, so it goes again as it went, under its key, before any
  /// later call of its keys, whatever the user saved since: a new call carrying one of its
  /// values under a new key would have the server apply that value twice, over what another
  /// device set in between. A record kept without a call (written by an older version), or
  /// with one that no longer reads as a call, gives none.
  func earlierLifeCall(
    of id: UUID, within keys: Set<Object.Key>, _ changes: LocalChanges<Object>
  ) -> (record: UnconfirmedValue<Object>, key: String, endpoint: Endpoint)? {
    for record in changes.unconfirmed[id] ?? [] {
      guard let call = record.call, !call.idempotencyKey.hasPrefix(keyPrefix),
        !record.keys.isEmpty, record.keys.isSubset(of: keys), let endpoint = call.endpoint
      else { continue }
      return (record, call.idempotencyKey, endpoint)
    }
    return nil
  }

  /// The idempotency key of `endpoint`, the deletion of `id`, where an earlier life of the app
  /// sent that call and never heard it answered; `nil` if none did.
  ///
  /// The call may already be applied, so it goes again under its key, and the server applies it
  /// at most once: sent under a new key, a leave would take the self user out again after
  /// another member added them back.
  func earlierLifeKey(
    ofDeletion id: UUID, _ endpoint: Endpoint, _ changes: LocalChanges<Object>
  ) -> String? {
    for record in changes.unconfirmed[id] ?? [] where record.keys.isEmpty {
      guard let call = record.call, !call.idempotencyKey.hasPrefix(keyPrefix),
        call.endpoint == endpoint
      else { continue }
      return call.idempotencyKey
    }
    return nil
  }

  /// Sends `endpoint`, the call an earlier life of the app wrote ahead in `record`, again as it
  /// went and under its idempotency key `key`, in place of the change of its keys now.
  ///
  /// The request settles only the keys that still hold what it carried; where a key differs,
  /// the difference is the user's change since, made in a life that kept no record of saves.
  /// The earlier life's records stay until an answer settles their keys: a refusal of this
  /// attempt does not say that the first one was not applied.
  func resend(
    _ record: UnconfirmedValue<Object>, key: String, endpoint: Endpoint,
    token: RequestToken, object: ObjectReference, workKeys: Set<Object.Key>,
    in context: ModelContext
  ) -> Preparation {
    let id = object.id
    let changes = context.localChanges(of: Object.self)
    let change = change(.update, id, keys: record.keys, changes, in: context)
    var flight = Flight(
      id: id, kind: .update, keys: record.keys, sent: record.value, local: record.value,
      endedDeletions: 0, alsoPossible: [], lastKnown: change.lastKnown,
      unconfirmed: change.unconfirmed, endpoint: endpoint,
      trail: context.startServerTrail(of: Object.self, id: id))
    // The call went in an earlier life: every save of this one came after it, and so did the
    // earlier saves its record names.
    flight.savedUpTo = 0
    // Of a set, the elements the record says the user saved since, and those the user's change
    // moves that the call does not name (a record written before elements were kept says only
    // the key): what else the call named counts from the resend.
    let current = context.object(Object.self, id: id)
    let named = endpoint.namedElements
    for key in record.savedSince {
      let moved = change.lastKnown.flatMap { base in
        current?.changedElements(at: key, comparedTo: base)
      }
      flight.savedInEarlierLife[key] = Set(moved ?? []).subtracting(named)
        .union(record.savedElementsSince[key] ?? [])
    }
    flight.idempotencyKey = key
    flight.earlierLifeVersion = changes.originalVersions[id]
    flight.mayBeAppliedAlready = true
    return launch(flight, token: token, object: object, workKeys: workKeys, in: context)
  }
}

extension Endpoint {
  /// The members a call of a group's members adds or removes; `nil` for any other call.
  var namedMembers: Set<UUID>? {
    switch self {
    case .addMembers(_, let list), .removeMembers(_, let list): Set(list.users)
    default: nil
    }
  }

  /// ``namedMembers`` as elements of a set-valued key; empty for any other call.
  var namedElements: Set<SetElement> {
    Set((namedMembers ?? []).map(SetElement.init))
  }
}

extension RecordedCall {
  /// The record of `request`, which went under the idempotency key `key`.
  init(_ request: HTTPRequest, key: String) {
    self.init(
      idempotencyKey: key, method: request.method.rawValue, segments: request.path.segments,
      body: request.body?.data)
  }

  /// The call this record names, read back as the backend's router reads it; `nil` if it no
  /// longer reads as one.
  var endpoint: Endpoint? {
    try? Endpoint.parse(method: method, segments: segments, body: body).get()
  }
}
