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

  /// Records `message` as an issue of `severity` at the captured location.
  public func record(_ message: String, severity: Issue.Severity = .error) {
    Issue.record(Comment(rawValue: message), severity: severity, sourceLocation: sourceLocation)
  }
}
