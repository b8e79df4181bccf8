import Testing

/// A trait that scopes each test case on its own and, on a suite, every test inside it.
///
/// Conform a `TestScoping` trait to this to get both behaviours: it is recursive, and it provides
/// no scope around a whole suite or a whole parameterized function, only around each case.
public protocol PerTestCaseTrait: TestTrait, SuiteTrait, TestScoping {}

extension PerTestCaseTrait {
  /// Applies to every test in a suite that carries it.
  public var isRecursive: Bool { true }

  /// Provides a scope per test case only.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }
}
