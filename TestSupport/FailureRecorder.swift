import Testing

/// Records issues at one source location, the caller's, so a helper's failures point at the test.
///
/// Helpers take `fileID`, `filePath`, `line` and `column` with caller defaults and build one of
/// these, as the seed's `FailureRecorder` captured `__FILE__` and `__LINE__`.
public struct FailureRecorder: Sendable {
  /// Where recorded issues point.
  public let sourceLocation: SourceLocation

  /// Creates a recorder that points at the given location, by default the caller's.
  public init(
    fileID: String = #fileID,
    filePath: String = #filePath,
    line: Int = #line,
    column: Int = #column
  ) {
    sourceLocation = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Creates a recorder that points at `sourceLocation`.
  public init(sourceLocation: SourceLocation) {
    self.sourceLocation = sourceLocation
  }

  /// Records `message` as an issue of `severity` at the captured location.
  public func record(_ message: String, severity: Issue.Severity = .error) {
    Issue.record(Comment(rawValue: message), severity: severity, sourceLocation: sourceLocation)
  }
}
