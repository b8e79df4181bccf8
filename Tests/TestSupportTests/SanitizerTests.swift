import Foundation
import Testing

@testable import TestSupport

@Suite("Sanitizer", .tags(.testSupport), .timeBudget(.seconds(5)))
struct SanitizerTests {
  /// What `Tools/test` built with: it exports `COURIER_SANITIZER` (`none` without `--sanitize`).
  static let announced = ProcessInfo.processInfo.environment["COURIER_SANITIZER"]

  @Test(
    "It finds the sanitizer the test process was built with, and no other",
    .enabled(if: announced != nil, "needs Tools/test, which says what it built with"))
  func findsTheBuiltSanitizer() throws {
    // given
    let expected = Set([Self.announced].compactMap { $0.flatMap(Sanitizer.init(rawValue:)) })

    // when
    let active = Sanitizer.active

    // then
    #expect(active == expected)
  }

  @Test("Each sanitizer is found by a symbol only its runtime defines")
  func runtimeSymbols() {
    // when
    let symbols = Sanitizer.allCases.map(\.runtimeSymbol)

    // then
    #expect(symbols == ["__tsan_init", "__asan_init"])
  }

  @Test("A test disabled under a sanitizer runs exactly when that sanitizer is not active")
  func disabledUnder() async throws {
    // given
    let traits = Sanitizer.allCases.map { ConditionTrait.disabled(under: $0, "a reason") }

    // when
    var runs: [Bool] = []
    for trait in traits { runs.append(try await trait.evaluate()) }

    // then
    #expect(runs == Sanitizer.allCases.map { !$0.isActive })
    #expect(traits.allSatisfy { $0.comments.map(\.rawValue) == ["a reason"] })
  }
}
