import JSON

/// Reading numbers out of event-stream JSON, and writing durations as the tools print them.
enum EventValues {
  /// The JSON value of each line of an event stream, with its line number from 1; a last line
  /// that is not JSON (cut short by a crash) is left out.
  ///
  /// - Throws: ``ToolError/malformedEventStream(line:reason:)`` for any other line that is not
  ///   JSON.
  static func lines(of text: String) throws(ToolError) -> [(number: Int, value: JSONValue)] {
    let lines = text.split(separator: "\n")
    var values: [(number: Int, value: JSONValue)] = []
    for (index, line) in lines.enumerated() {
      do {
        values.append((index + 1, try JSONParser.parse(String(line))))
      } catch {
        if index == lines.count - 1 { break }
        throw .malformedEventStream(line: index + 1, reason: "\(error)")
      }
    }
    return values
  }

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
