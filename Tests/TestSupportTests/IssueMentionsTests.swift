import TestSupport
import Testing

@Suite("Issue+Mentions", .tags(.testSupport), .timeBudget(.seconds(5)))
struct IssueMentionsTests {
  @Test("A recorded issue mentions the fragments of its comment and nothing else")
  func mentions() {
    // when / then
    withKnownIssue {
      Issue.record("the next save never came")
    } matching: { issue in
      issue.mentions("next save") && !issue.mentions("merge")
    }
  }
}
