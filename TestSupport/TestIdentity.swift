import Foundation
import Testing

/// A stable number for the running test case, used to seed per-test sequences.
///
/// It is computed from the test's module and name (not its line, so moving a test keeps its
/// seed) and, for a parameterized case, from the identities of that case's arguments. It does not
/// use `Hasher`, whose seed changes with every process.
public enum TestIdentity {
  /// The seed for `test` and `testCase`, the same in every run.
  public static func seed(for test: Test, testCase: Test.Case?) -> UInt64 {
    var hash = FNV1a()
    hash.combine(test.id.moduleName)
    for component in test.id.nameComponents { hash.combine(component) }
    if let testCase, testCase.isParameterized {
      hash.combine(caseFingerprint(testCase))
    }
    return hash.value
  }

  /// The seed for the test case running on this task, or `nil` outside a test.
  public static var currentSeed: UInt64? {
    Test.current.map { seed(for: $0, testCase: Test.Case.current) }
  }

  /// The case's arguments as reflection prints them, less any memory address, which varies.
  ///
  /// Swift Testing 6.3 has no public identity for a test case; its reflected form names the
  /// arguments' stable ids and is the closest public view of them.
  static func caseFingerprint(_ testCase: Test.Case) -> String {
    let reflected = String(reflecting: testCase)
    var result = ""
    var rest = Substring(reflected)
    while let range = rest.range(of: " at $") {
      result += rest[..<range.lowerBound]
      rest = rest[range.upperBound...].drop(while: \.isHexDigit)
    }
    return result + rest
  }
}

/// The 64-bit FNV-1a hash, chosen because it is tiny and the same in every process.
struct FNV1a {
  private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

  mutating func combine(_ text: String) {
    for byte in text.utf8 {
      value ^= UInt64(byte)
      value &*= 0x0000_0100_0000_01B3
    }
    value ^= 0xFF
    value &*= 0x0000_0100_0000_01B3
  }
}
