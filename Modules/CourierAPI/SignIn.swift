import Foundation
import JSON
import ParsingCore

/// The body of `POST /login`: who signs in, by handle.
///
/// ```json
/// {"handle": "ann"}
/// ```
public struct SignIn: PayloadConvertible, Hashable {
  /// The handle of the user signing in; never blank.
  public var handle: String

  /// Creates a sign-in as the user with `handle`.
  public init(handle: String) {
    self.handle = handle
  }

  /// Reads the handle, recording it if bad.
  public static func read(from reader: inout ObjectReader) -> SignIn? {
    reader.nonBlank("handle").map(SignIn.init)
  }

  /// The sign-in as the backend reads it.
  public var jsonValue: JSONValue { ["handle": .string(handle)] }
}

/// The answer to `POST /login`: the bearer token every later request of the user carries, and
/// the user it stands for.
///
/// ```json
/// {"access_token": "c0ffee…", "user": "6e2c…"}
/// ```
public struct SignedIn: PayloadConvertible, Hashable {
  /// The token to send as `Authorization: Bearer …`.
  public var accessToken: String
  /// The signed-in user.
  public var user: UUID

  /// Creates an answer.
  public init(accessToken: String, user: UUID) {
    self.accessToken = accessToken
    self.user = user
  }

  /// Reads the token and the user, recording each bad field.
  public static func read(from reader: inout ObjectReader) -> SignedIn? {
    let token = reader.nonBlank("access_token")
    let user = reader.uuid("user")
    guard let token, let user else { return nil }
    return SignedIn(accessToken: token, user: user)
  }

  /// The answer as the backend writes it.
  public var jsonValue: JSONValue {
    ["access_token": .string(accessToken), "user": .string(user.lowercasedText)]
  }
}
