import TestSupport
import Testing

@Suite("Tags", .tags(.testSupport), .timeBudget(.seconds(5)))
struct TagsTests {
  @Test(
    "It declares the cross-cutting tags the project selects by",
    arguments: zip(
      [Tag.encoding, .parsing, .models, .sync, .transport, .integration, .slow],
      ["encoding", "parsing", "models", "sync", "transport", "integration", "slow"]
    )
  )
  func tagIsDeclared(tag: Tag, name: String) {
    // when
    let description = String(describing: tag)

    // then
    #expect(description == ".\(name)")
  }
}
