import Testing

/// Whether `issue` carries a comment containing `fragment`, for `withKnownIssue(matching:)`.
func issue(_ issue: Issue, mentions fragment: String) -> Bool {
  issue.comments.contains { $0.rawValue.contains(fragment) }
}
