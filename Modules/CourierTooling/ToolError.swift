/// Why a tool refused to go on, worded for the contributor who ran it.
public enum ToolError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A line of an event stream could not be read.
  case malformedEventStream(line: Int, reason: String)
  /// A tag filter names a tag that no test carries.
  case unknownTag(String, known: [String])
  /// The filters selected no test.
  case nothingSelected(String)
  /// A tag expression could not be read.
  case invalidTagExpression(String, reason: String)
  /// A module name was refused.
  case invalidModuleName(String, reason: String)
  /// A dependency names no module of the manifest.
  case unknownDependency(String, known: [String])
  /// The dependencies would form a cycle.
  case dependencyCycle([String])
  /// A file the tool edits does not have the shape it expects.
  case unexpectedFile(path: String, reason: String)
  /// A `--shard` value could not be read.
  case invalidShard(String, reason: String)
  /// A line of a timings file could not be read.
  case malformedTimings(line: Int, reason: String)
  /// A coverage export could not be read.
  case malformedCoverage(String)

  /// The message the tool prints.
  public var description: String {
    switch self {
    case .malformedEventStream(let line, let reason):
      "the event stream is not readable at line \(line): \(reason)"
    case .unknownTag(let tag, let known):
      "no test carries the tag '\(tag)'; tags in use: \(known.joined(separator: ", "))"
    case .nothingSelected(let filter): "no test matches \(filter)"
    case .invalidTagExpression(let text, let reason):
      "cannot read the tag expression '\(text)': \(reason)"
    case .invalidModuleName(let name, let reason):
      "cannot use '\(name)' as a module name: \(reason)"
    case .unknownDependency(let name, let known):
      "unknown dependency '\(name)'; modules: \(known.joined(separator: ", "))"
    case .dependencyCycle(let cycle):
      "the dependencies form a cycle: \(cycle.joined(separator: " → "))"
    case .unexpectedFile(let path, let reason): "\(path) \(reason)"
    case .invalidShard(let text, let reason): "cannot read the shard '\(text)': \(reason)"
    case .malformedTimings(let line, let reason):
      "the timings file is not readable at line \(line): \(reason)"
    case .malformedCoverage(let reason): "cannot read the coverage export: \(reason)"
    }
  }
}
