/// An answer the server gives on its own, refusing a request it cannot serve.
public struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
  /// The status of the answer: 400, 413, 431, 501 or 505.
  public let status: Int
  /// What was wrong with the request, sent as the answer's body.
  public let message: String

  /// Creates a refusal with `status` that says `message`.
  public init(_ status: Int, _ message: String) {
    self.status = status
    self.message = message
  }

  /// `400: the method is not a token`.
  public var description: String { "\(status): \(message)" }
}
