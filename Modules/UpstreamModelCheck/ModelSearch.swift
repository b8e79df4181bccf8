import Foundation
import Seams
import SyncStrategies

/// Runs many seeds' sequences at once, each thread a share of them, and collects the ones that
/// broke a rule.
public enum ModelSearch {
  /// Runs the `count` seeds from `first`, `steps` steps each, dealt in turn to `threads`
  /// threads of their own, and returns the failing runs by seed.
  ///
  /// It blocks the calling thread until every seed has run: call it from a command's main code
  /// or a thread of its own, not from a task of the cooperative pool. `afterEach` gets every
  /// run as it ends, with the number of seeds run so far, from whichever thread ran it: to show
  /// a failure at once, and progress, during a long search.
  public static func run(
    first: UInt64, count: Int, steps: Int, threads: Int,
    strategies: [any UpstreamStrategy] = UpstreamModel.standardStrategies,
    afterEach: @escaping @Sendable (_ run: ModelRun, _ finished: Int) -> Void = { _, _ in }
  ) -> [ModelRun] {
    let failing = Locked<[ModelRun]>([])
    let finished = Locked(0)
    let parts = max(1, min(threads, count))
    let group = DispatchGroup()
    for part in 0..<parts {
      group.enter()
      let thread = Thread {
        for offset in stride(from: part, to: count, by: parts) {
          let run = ModelRun(
            seed: first &+ UInt64(offset), steps: steps, strategies: strategies)
          if run.violation != nil { failing.withLock { $0.append(run) } }
          afterEach(
            run,
            finished.withLock { count in
              count += 1
              return count
            })
        }
        group.leave()
      }
      // Deep model stacks: the default stack of a secondary thread is small on some systems.
      thread.stackSize = 8 << 20
      thread.start()
    }
    group.wait()
    return failing.withLock { $0 }.sorted { $0.seed < $1.seed }
  }
}
