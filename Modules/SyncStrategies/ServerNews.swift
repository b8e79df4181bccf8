import Models

/// What notifications said the server holds for some keys of an object while a request for
/// those keys was in flight.
///
/// For an update, the server's versions place its answer among the news: news the server applied
/// after the request stand. For an insert, the notified change came after it (only a server that
/// has the object can report a change of it), so the object takes the notified values.
struct ServerNews<Object: ModelObject> {
  /// The object as the server was last heard to hold it.
  let value: Object
  /// The keys the server was heard to change while the request was in flight.
  let keys: Set<Object.Key>

  /// `held` with the notified values in place of its own where the acknowledgement says the
  /// backend holds what was `sent`: the news came after the request, so they stand.
  func overtaking(_ held: Object, sent: Object) -> Object {
    var value = held
    for key in keys where held.hasSameValue(at: key, as: sent) {
      value.copyValue(at: key, from: self.value)
    }
    return value
  }

  /// What the backend holds after a creation answered with `held`, when the news came after it:
  /// the keys the news moved take the news' values.
  ///
  /// Each of `versions` (what the creations sent, with the news applied) may be the one the
  /// backend kept; those that end differently for the moved keys are possible too, so a later
  /// change of members accounts for each of them.
  func acknowledgementOfInsert(held: Object, versions: [Object]) -> Acknowledgement<Object> {
    var value = held
    for key in keys { value.copyValue(at: key, from: self.value) }
    var possible: [Object] = []
    for version in versions {
      var candidate = value
      for key in keys { candidate.copyValue(at: key, from: version) }
      if candidate != value && !possible.contains(candidate) { possible.append(candidate) }
    }
    return Acknowledgement(value, alsoPossible: possible)
  }
}
