import Models

/// What notifications said the server holds for some keys of an object while a request for
/// those keys was in flight.
///
/// For an update, the server's order of that request and the notified change is unknown when the
/// answer comes, so both values are possible and the keys stay pending until this device's value
/// is sent again. For an insert, the notified change came after it (only a server that has the
/// object can report a change of it), so the object takes the notified values.
struct ServerNews<Object: ModelObject> {
  /// The object as the server was last heard to hold it.
  let value: Object
  /// The keys the server was heard to change while the request was in flight.
  let keys: Set<Object.Key>

  /// `held` with the notified values in place of its own, where the acknowledgement says the
  /// backend holds what was `sent`; `nil` if that changes nothing.
  ///
  /// Where the acknowledgement already differs from what was sent, the strategy has worked out
  /// the backend's value from the notified one (members added to the members it has now), so
  /// the news is accounted for.
  func possible(besides held: Object, sent: Object) -> Object? {
    let contradicted = keys.filter { key in
      held.hasSameValue(at: key, as: sent) && !held.hasSameValue(at: key, as: value)
    }
    guard !contradicted.isEmpty else { return nil }
    var possible = held
    for key in contradicted { possible.copyValue(at: key, from: value) }
    return possible
  }
}
