import Models
import Seams

extension ModelStack {
  /// A fresh in-memory stack for one test, holding `objects` as already synchronised (no local
  /// changes), wired to the test's work tracker and UUID source.
  ///
  /// Nothing is shared between stacks, so tests running in parallel never see each other's
  /// objects.
  public static func forTesting(
    _ objects: [any ModelObject] = [], uuids: UUIDSource = .current
  ) -> ModelStack {
    ModelStack.inMemory(objects, uuids: uuids, tracker: .current)
  }
}
