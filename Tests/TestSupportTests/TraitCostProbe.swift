import Foundation
import TestSupport
import Testing

/// A benchmark fixture, not a check: `Tools/bench traits` runs these two tables one after the
/// other and divides the difference in time by the number of cases, to learn what `.courier`
/// adds to an empty test.
@Suite(
  "Trait cost probe", .tags(.testSupport),
  .enabled(
    if: ProcessInfo.processInfo.environment["COURIER_TRAIT_PROBE"] == "1",
    "a benchmark fixture: Tools/bench traits runs it with COURIER_TRAIT_PROBE=1"))
struct TraitCostProbe {
  @Test("An empty test inside .courier sees its own UUID source", .courier(), arguments: 0..<2000)
  func withTraits(_ index: Int) {
    #expect(UUIDSource.current !== UUIDSource.random)
  }

  @Test("An empty test without traits sees the random UUID source", arguments: 0..<2000)
  func withoutTraits(_ index: Int) {
    #expect(UUIDSource.current === UUIDSource.random)
  }
}
