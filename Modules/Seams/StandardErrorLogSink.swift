import Foundation

/// The production log sink: one line per entry on standard error, below a minimum level.
public struct StandardErrorLogSink: LogSink {
  /// Entries below this level are dropped.
  public let minimumLevel: LogLevel

  /// Creates a sink that writes entries at `minimumLevel` or above.
  public init(minimumLevel: LogLevel = .info) {
    self.minimumLevel = minimumLevel
  }

  /// Writes the entry to standard error if it is serious enough.
  public func receive(_ entry: LogEntry) {
    guard entry.level >= minimumLevel else { return }
    FileHandle.standardError.write(Data((entry.description + "\n").utf8))
  }
}
