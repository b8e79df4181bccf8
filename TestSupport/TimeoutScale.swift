import Foundation

/// The one factor by which every TestSupport timeout is multiplied.
///
/// Set `COURIER_TIMEOUT_SCALE` (a positive number) to stretch all time budgets, quiescence waits
/// and expectation waits at once: `COURIER_TIMEOUT_SCALE=5` on a slow machine, a large value when
/// stepping through a debugger. Anything else leaves the factor at 1.
public enum TimeoutScale {
  /// The factor read from the environment when first used.
  public static let factor: Double = parse(
    ProcessInfo.processInfo.environment["COURIER_TIMEOUT_SCALE"])

  /// The factor a raw environment value stands for: positive finite numbers as they are, else 1.
  public static func parse(_ text: String?) -> Double {
    guard let text, let value = Double(text), value.isFinite, value > 0 else { return 1 }
    return value
  }

  /// `duration` multiplied by ``factor``.
  public static func scaled(_ duration: Duration) -> Duration {
    duration * factor
  }
}

extension Duration {
  /// The duration in milliseconds, for messages.
  var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
  }

  /// The duration written for a person: `250 ms`, `1.5 s`.
  var readable: String {
    let ms = milliseconds
    return ms < 1_000 ? "\(Int(ms.rounded())) ms" : "\((ms / 100).rounded() / 10) s"
  }
}
