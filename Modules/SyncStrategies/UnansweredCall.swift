import CourierAPI

/// A call that holds a whole object (a creation or a deletion) whose answer was lost, with the
/// idempotency key it went under, kept so that every later attempt of it goes under that key.
struct UnansweredCall: Sendable {
  /// The call that went.
  let endpoint: Endpoint
  /// The idempotency key it went under.
  let key: String
  /// For a deletion, how many deletions of the object had ended when it went
  /// (`ModelContext.endedDeletions(of:)`); 0 for a creation.
  let endedDeletions: Int

  /// The key for another attempt of `endpoint`, made when `endedDeletions` deletions of the
  /// object had ended, if it is this call again (the same call, of the same deletion); `nil`
  /// otherwise.
  func key(for endpoint: Endpoint, _ endedDeletions: Int) -> String? {
    self.endpoint == endpoint && self.endedDeletions == endedDeletions ? key : nil
  }
}
