import Seams
import TestSupport
import Testing

@Suite("Seams", .tags(.seams), .timeLimit(.minutes(1)))
struct SeamsTests {
  @Test("It names the module's purpose in its namespace")
  func namespaceExists() {
    // when
    let name = String(describing: Seams.self)

    // then
    #expect(name == "Seams")
  }
}
