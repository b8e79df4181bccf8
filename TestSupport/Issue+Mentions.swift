import Testing

extension Issue {
  /// Whether one of the issue's comments contains `fragment`: what a `withKnownIssue` matcher asks
  /// when a test proves that a helper reports the failure it should.
  ///
  /// ```swift
  /// withKnownIssue {
  ///   expectValidUUIDString("eeeee")
  /// } matching: { issue in
  ///   issue.mentions("'eeeee' is not a valid UUID string")
  /// }
  /// ```
  public func mentions(_ fragment: String) -> Bool {
    comments.contains { $0.rawValue.contains(fragment) }
  }
}
