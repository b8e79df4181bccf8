import FakeBackend
import Foundation
import Seams
import SyncStrategies

/// One seed's sequence of steps run against the upstream tracker: the first rule of the sync
/// promise it broke, if any, and the steps that ran up to it.
///
/// A run draws its steps from a `SeededRandomNumberGenerator` and its ids from a seeded
/// `UUIDSource`, so the same seed and length give the same run, in any process:
///
/// ```swift
/// let run = ModelRun(seed: 481, steps: 200)
/// if let violation = run.violation {
///   print("seed 481 broke the promise \(violation)")
/// }
/// ```
public struct ModelRun: Sendable {
  /// The seed the steps and ids were drawn from.
  public let seed: UInt64
  /// The first broken rule, or `nil` when the run kept the promise after every step and after
  /// draining.
  public let violation: ModelViolation?
  /// The steps that ran, up to the one after which the rule broke (all of them on success).
  public let steps: [ModelStep]
  /// The requests and answers of the run that concern the objects the violation names; for a
  /// run that kept the promise only because a check was waived, all of them, between its
  /// steps.
  public let trace: [String]
  /// How often a check was waived in the run, by reason: each exemption is counted and
  /// reported, so none grows unseen.
  public let exemptions: [String: Int]

  /// Runs `steps` steps of `seed`'s sequence with `strategies`, then drains the tracker and
  /// checks the end state.
  public init(
    seed: UInt64, steps: Int,
    strategies: [any UpstreamStrategy] = UpstreamModel.standardStrategies
  ) {
    self.init(seed: seed, steps: steps, strategies: strategies, defect: nil)
  }

  /// Runs `seed`'s sequence with a client broken as `defect` says, which the checks must
  /// catch.
  package init(
    seed: UInt64, steps: Int, strategies: [any UpstreamStrategy], defect: ModelDefect?
  ) {
    self.seed = seed
    (violation, self.steps, trace, exemptions) = UUIDSource.$current.withValue(.seeded(seed)) {
      Self.outcome(seed: seed, steps: steps, strategies: strategies, defect: defect)
    }
  }

  private static func outcome(
    seed: UInt64, steps: Int, strategies: [any UpstreamStrategy], defect: ModelDefect?
  ) -> (ModelViolation?, [ModelStep], [String], [String: Int]) {
    var random = SeededRandomNumberGenerator(seed: seed)
    var ran: [ModelStep] = []
    let model: UpstreamModel
    do {
      model = try UpstreamModel(uuids: .seeded(seed), strategies: strategies, defect: defect)
    } catch {
      return (
        ModelViolation(step: -1, rule: "the world could not be set up: \(error)"), [], [], [:]
      )
    }
    var exemptions: [String: Int] {
      model.shownWhileSentAgain > 0
        ? ["older value shown while sent again": model.shownWhileSentAgain] : [:]
    }
    do {
      for index in 0..<steps {
        let step = model.nextStep(&random)
        ran.append(step)
        if try model.run(step) { try model.checkStep(index, after: step) }
      }
      try model.drain()
      try model.checkDrained(steps)
      let waived = !exemptions.isEmpty
      return (nil, ran, waived ? model.trace.map(\.description) : [], exemptions)
    } catch let violation as ModelViolation {
      let named = model.trace.map(\.description).filter { line in
        // Ids may sit in parentheses or before a colon: words are runs of hex digits and dashes.
        violation.rule.split { !$0.isHexDigit && $0 != "-" }.contains { word in
          word.count == 36 && line.localizedCaseInsensitiveContains(word)
        }
      }
      return (violation, ran, named, exemptions)
    } catch {
      return (ModelViolation(step: -1, rule: "the run threw \(error)"), ran, [], exemptions)
    }
  }

  /// The shortest prefix of `seed`'s sequence that still breaks a rule, draining included, for
  /// a seed that broke one after `steps` steps; the full run if no shorter one does.
  public static func shortestFailingPrefix(
    seed: UInt64, failingAfter steps: Int,
    strategies: [any UpstreamStrategy] = UpstreamModel.standardStrategies
  ) -> ModelRun {
    var low = 0
    var high = steps
    var shortest = ModelRun(seed: seed, steps: steps, strategies: strategies)
    while low < high {
      let middle = (low + high) / 2
      let run = ModelRun(seed: seed, steps: middle, strategies: strategies)
      if run.violation != nil {
        high = middle
        shortest = run
      } else {
        low = middle + 1
      }
    }
    return shortest
  }

  /// The run's failure as a report: the broken rule, the steps that ran, and the requests of the
  /// objects it names; empty when the run kept the promise.
  public var report: String {
    guard let violation else { return "" }
    return """
      seed \(seed) broke the promise \(violation) (\(steps.count) steps):
      \(steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
      its requests for the objects named:
      \(trace.map { "  \($0)" }.joined(separator: "\n"))
      """
  }
}
