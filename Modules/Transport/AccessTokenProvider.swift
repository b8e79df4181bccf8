/// Where a transport gets the bearer token it sends, and a fresh one when the backend answers
/// 401.
public protocol AccessTokenProvider: Sendable {
  /// The current token.
  func token() async throws -> String

  /// A new token after the backend refused `rejected`.
  func refreshToken(rejected: String) async throws -> String
}
