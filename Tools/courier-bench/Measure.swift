import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Timings of one piece of work: a warm-up run, then several measured runs.
struct Samples {
  let durations: [Duration]
  /// Whether an unmeasured run came first.
  var warmedUp = true

  /// Runs `body` once to warm up, then `runs` times, timing each run.
  static func measure(runs: Int, _ body: () throws -> Void) rethrows -> Samples {
    let clock = ContinuousClock()
    try body()
    var durations: [Duration] = []
    for _ in 0..<runs {
      let start = clock.now
      try body()
      durations.append(clock.now - start)
    }
    return Samples(durations: durations)
  }

  /// Runs `subject` and `baseline` once each to warm up, then `runs` times each, in turn, timing
  /// each run: whatever drifts while they run (the machine's load, a file growing) weighs on
  /// both alike.
  static func measureAlternating(
    runs: Int, _ subject: () throws -> Void, against baseline: () throws -> Void
  ) rethrows -> (subject: Samples, baseline: Samples) {
    let clock = ContinuousClock()
    try subject()
    try baseline()
    var subjectDurations: [Duration] = []
    var baselineDurations: [Duration] = []
    for _ in 0..<runs {
      var start = clock.now
      try subject()
      subjectDurations.append(clock.now - start)
      start = clock.now
      try baseline()
      baselineDurations.append(clock.now - start)
    }
    return (Samples(durations: subjectDurations), Samples(durations: baselineDurations))
  }

  /// Like ``measure(runs:_:)`` for asynchronous work; `prepare` runs untimed before each run.
  static func measure<Prepared>(
    runs: Int, isolation: isolated (any Actor)? = #isolation,
    prepare: () async throws -> Prepared, _ body: (Prepared) async throws -> Void
  ) async rethrows -> Samples {
    let clock = ContinuousClock()
    try await body(try await prepare())
    var durations: [Duration] = []
    for _ in 0..<runs {
      let prepared = try await prepare()
      let start = clock.now
      try await body(prepared)
      durations.append(clock.now - start)
    }
    return Samples(durations: durations)
  }

  var sorted: [Duration] { durations.sorted() }
  var median: Duration { sorted[sorted.count / 2] }
  var min: Duration { sorted.first ?? .zero }
  var max: Duration { sorted.last ?? .zero }
}

extension Duration {
  /// The duration in seconds, as a double.
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }

  /// Reads as `12.3 ms`, `45.6 µs` or `1.23 s`.
  var readable: String {
    let value = seconds
    if value >= 1 { return String(format: "%.2f s", value) }
    if value >= 1e-3 { return String(format: "%.1f ms", value * 1e3) }
    return String(format: "%.1f µs", value * 1e6)
  }
}

/// The peak resident memory of this process so far, in bytes.
func peakMemoryBytes() -> Int {
  var usage = rusage()
  #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)
  #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
  #endif
}

/// The resident memory of this process now, in bytes, where the system says it.
func currentMemoryBytes() -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
    let pages = status.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
  else { return nil }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The peak resident memory of this process image, in bytes.
///
/// It is Linux's `VmHWM`, which starts anew at `exec`, where `ru_maxrss` keeps the peak of the
/// process that forked it; ``peakMemoryBytes()`` where the system does not say it.
func peakImageMemoryBytes() -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
  else { return peakMemoryBytes() }
  return kilobytes * 1024
}
