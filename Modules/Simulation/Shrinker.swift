/// Shortens a failing schedule to one that still breaks the same rule, by taking out runs of
/// steps, halves first, then smaller ones down to single steps.
@MainActor
public enum Shrinker {
  /// The shortest schedule found that still breaks `invariant` in `seed`'s world.
  public static func shrink(
    seed: UInt64, schedule: [SimulationStep], breaking invariant: Invariant,
    options: SimulationOptions
  ) async -> [SimulationStep] {
    var current = schedule
    var chunk = max(current.count / 2, 1)
    while true {
      var start = 0
      var removedAny = false
      while start < current.count {
        var candidate = current
        candidate.removeSubrange(start..<min(start + chunk, current.count))
        let report = await Simulator.run(seed: seed, schedule: candidate, options: options)
        if report.violation?.invariant == invariant {
          current = candidate
          removedAny = true
        } else {
          start += chunk
        }
      }
      // A pass that removed steps is tried again at the same size on the shorter schedule.
      if removedAny { continue }
      if chunk == 1 { break }
      chunk /= 2
    }
    return current
  }
}
