/// A rule of the sync promise that a model run found broken, and the step after which it was.
public struct ModelViolation: Error, Sendable, CustomStringConvertible {
  /// The index of the step after which the rule was broken, from 0; the drain counts as the step
  /// after the last, and -1 means the run could not start or threw.
  public let step: Int
  /// What was found broken, in words, with the objects it concerns.
  public let rule: String

  /// Creates a violation found after step `step` (from 0).
  public init(step: Int, rule: String) {
    self.step = step
    self.rule = rule
  }

  /// Reads as `after step N: rule`, counting steps from 1.
  public var description: String { "after step \(step + 1): \(rule)" }
}
