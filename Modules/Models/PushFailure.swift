/// Why the backend refused a local change for good, as the change log keeps it: the change is
/// not sent again until the app retries it, discards it, or changes the object again.
public struct PushFailure: Sendable, Hashable, Codable, CustomStringConvertible {
  /// Why, in words, such as `status 403 (access-denied): self is not a member`.
  public let reason: String
  /// The HTTP status of the refusal, if there was a response.
  public let status: Int?
  /// The backend's label for the error, if it gave one.
  public let label: String?

  /// Creates a failure record.
  public init(reason: String, status: Int? = nil, label: String? = nil) {
    self.reason = reason
    self.status = status
    self.label = label
  }

  /// The reason.
  public var description: String { reason }
}
