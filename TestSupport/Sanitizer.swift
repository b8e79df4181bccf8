import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A compiler sanitizer the test process may be built with, found at run time by its runtime's
/// symbols, so a test can step aside where the sanitizer and a system library do not get along.
///
/// `Tools/test --sanitize thread` builds with ThreadSanitizer. On Linux, FoundationNetworking's
/// `URLSession` stops the process with a fatal error under it, and forking a child for an exit
/// test aborts in TSan's fork handling; tests that need either carry
/// `.disabled(under: .thread, "…")`, and every other test runs under the sanitizer.
package enum Sanitizer: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// ThreadSanitizer: data races and lock misuse.
  case thread
  /// AddressSanitizer: out-of-bounds accesses, use after free, leaks.
  case address

  /// The symbol only this sanitizer's runtime defines.
  var runtimeSymbol: String {
    switch self {
    case .thread: "__tsan_init"
    case .address: "__asan_init"
    }
  }

  /// Whether this sanitizer's runtime is linked into the running process.
  package var isActive: Bool { Self.active.contains(self) }

  /// The sanitizers whose runtimes are linked into the running process.
  package static let active: Set<Sanitizer> = Set(allCases.filter { $0.isLinked })

  private var isLinked: Bool {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, runtimeSymbol) != nil
  }

  /// The sanitizer's name as `Tools/test --sanitize` takes it.
  package var description: String { rawValue }
}

extension Trait where Self == ConditionTrait {
  /// Skips the test when the process runs under `sanitizer`, with the reason shown in the run.
  package static func disabled(
    under sanitizer: Sanitizer, _ reason: Comment, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Self {
    .disabled(if: sanitizer.isActive, reason, sourceLocation: sourceLocation)
  }
}
