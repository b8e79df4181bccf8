import Foundation

/// A request to the backend as it went, kept beside a write-ahead record so that a later life
/// of the app can send the very same call again, under the same idempotency key, until some
/// attempt of it is answered.
///
/// The models do not read it: the sync layer writes it from the request it sends and reads it
/// back into that request.
package struct RecordedCall: Sendable, Hashable, Codable {
  /// The idempotency key the call went under.
  package let idempotencyKey: String
  /// The method, as it goes on the wire (`PUT`).
  package let method: String
  /// The decoded segments of the path (`["conversations", "…", "members"]`).
  package let segments: [String]
  /// The body's bytes, if the call has one.
  package let body: Data?

  /// Creates the record of a call.
  package init(idempotencyKey: String, method: String, segments: [String], body: Data?) {
    self.idempotencyKey = idempotencyKey
    self.method = method
    self.segments = segments
    self.body = body
  }
}
