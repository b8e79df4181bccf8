import Foundation

/// What a child run of a benchmark reports: how long its work took and the peak RSS of its
/// process, which holds nothing but that work.
struct ChildRun {
  let elapsed: Duration
  let peakMemory: Int

  /// Runs this executable with `arguments` and reads the line it prints: seconds, then bytes.
  static func run(_ arguments: [String]) async throws -> ChildRun {
    let output = Pipe()
    let status = try await runProcess(CommandLine.arguments[0], arguments, output: output)
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let fields = text.split(whereSeparator: \.isWhitespace)
    guard status == 0, fields.count == 2, let seconds = Double(fields[0]),
      let bytes = Int(fields[1])
    else { throw BenchError.mismatch("a child run \(arguments) said '\(text)' (\(status))") }
    return ChildRun(elapsed: .nanoseconds(Int64(seconds * 1e9)), peakMemory: bytes)
  }

  /// Prints what the parent's ``run(_:)`` reads: `elapsed` in seconds, then the peak RSS.
  static func report(_ elapsed: Duration) {
    print(elapsed.seconds, peakImageMemoryBytes())
  }
}
