import CourierAPI
import Foundation
import Transport

/// Bearer tokens from the backend's sign-in call (`POST /login`), kept until the backend refuses
/// one; then it signs in again.
public actor SignInTokens: AccessTokenProvider {
  /// Why no token came.
  public struct Failure: Error, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String
  }

  private let handle: String
  private let transport: any TransportSession
  private var current: String?

  /// Signs in as the user with `handle` through `transport`, which sends no token of its own.
  public init(handle: String, transport: any TransportSession) {
    self.handle = handle
    self.transport = transport
  }

  /// The current token, signing in first if there is none.
  public func token() async throws -> String {
    if let current { return current }
    return try await signIn().accessToken
  }

  /// A new token after the backend refused `rejected`.
  public func refreshToken(rejected: String) async throws -> String {
    if let current, current != rejected { return current }
    current = nil
    return try await signIn().accessToken
  }

  /// Signs in, keeping the token, and returns the session: the token and the signed-in user.
  public func signIn() async throws -> SignedIn {
    let endpoint = Endpoint.signIn(SignIn(handle: handle))
    let response = try await transport.send(try endpoint.request())
    guard (200..<300).contains(response.status) else {
      let reason = (try? APIError.parse(response.body)).map(\.message) ?? "no reason given"
      throw Failure(description: "signing in as \(handle) answered \(response.status): \(reason)")
    }
    switch endpoint.decodeResponse(status: response.status, body: response.body) {
    case .success(.signedIn(let session)):
      current = session.accessToken
      return session
    case .success(let other):
      throw Failure(description: "signing in answered \(other)")
    case .failure(let error):
      throw Failure(description: "\(error)")
    }
  }
}
