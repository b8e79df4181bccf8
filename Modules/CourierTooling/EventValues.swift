import JSON

/// Reading numbers out of event-stream JSON, and writing durations as the tools print them.
enum EventValues {
  /// The number `value` holds, integer or not.
  static func number(_ value: JSONValue?) -> Double? {
    switch value {
    case .integer(let number)?: Double(number)
    case .double(let number)?: number
    default: nil
    }
  }

  /// Seconds with three decimals, such as `12.500`.
  static func seconds(_ seconds: Double) -> String {
    let milliseconds = Int((seconds * 1000).rounded())
    let fraction = String(milliseconds % 1000)
    return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
  }
}
