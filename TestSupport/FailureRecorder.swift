import Foundation
import Testing

/// Records issues at one source location, the caller's, so a helper's failures point at the test.
///
/// Helpers take `sourceLocation: SourceLocation = #_sourceLocation` and record through one of
/// these, so a failure is reported on the line that called the helper.
public struct FailureRecorder: Sendable {
  /// Where recorded issues point.
  public let sourceLocation: SourceLocation

  /// Creates a recorder that points at `sourceLocation`, by default the caller's.
  public init(sourceLocation: SourceLocation = #_sourceLocation) {
    self.sourceLocation = sourceLocation
  }

  /// Records `message` as an issue at the captured location: a failure of the test.
  public func record(_ message: String) {
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
  }

  /// Records `message` as a warning at the captured location: shown in the results, but the
  /// test still passes.
  ///
  /// Issue severities came with Swift 6.3; an older toolchain prints the warning to standard
  /// error instead.
  public func recordWarning(_ message: String) {
    #if compiler(>=6.3)
      Issue.record(Comment(rawValue: message), severity: .warning, sourceLocation: sourceLocation)
    #else
      FileHandle.standardError.write(Data("warning: \(sourceLocation): \(message)\n".utf8))
    #endif
  }
}
