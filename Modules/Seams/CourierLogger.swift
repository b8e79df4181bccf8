/// How serious a logged message is.
public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
  /// Detail for someone stepping through a problem.
  case debug
  /// Normal progress worth keeping.
  case info
  /// Something unexpected that the code recovered from.
  case warning
  /// Something failed and was not recovered; in tests this fails the test unless expected.
  case error

  /// Orders levels from least to most serious.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The level's name, such as `error`.
  public var description: String {
    switch self {
    case .debug: "debug"
    case .info: "info"
    case .warning: "warning"
    case .error: "error"
    }
  }
}

/// One message as library code logged it.
public struct LogEntry: Sendable, Hashable, CustomStringConvertible {
  /// How serious it is.
  public let level: LogLevel
  /// The component that logged it, such as `transport`.
  public let category: String
  /// The text; it must never hold a secret such as a token.
  public let message: String

  /// Creates an entry.
  public init(level: LogLevel, category: String, message: String) {
    self.level = level
    self.category = category
    self.message = message
  }

  /// The entry as one line: `[error] transport: request failed`.
  public var description: String { "[\(level)] \(category): \(message)" }
}

/// Receives log entries; the production sink writes to standard error, tests install a recorder.
public protocol LogSink: Sendable {
  /// Takes one entry; called from any task or thread.
  func receive(_ entry: LogEntry)
}

/// What library code logs through: a category plus the sink in force for the current task.
public struct CourierLogger: Sendable {
  /// The sink used when no other was installed for the current task.
  @TaskLocal public static var sink: any LogSink = StandardErrorLogSink()

  /// The component this logger speaks for.
  public let category: String

  /// Creates a logger for `category`.
  public init(category: String) {
    self.category = category
  }

  /// Logs `message` at `level` to the current task's sink.
  public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
    Self.sink.receive(LogEntry(level: level, category: category, message: message()))
  }

  /// Logs detail for debugging.
  public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
  /// Logs normal progress.
  public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
  /// Logs a recovered problem.
  public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
  /// Logs an unrecovered failure.
  public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
