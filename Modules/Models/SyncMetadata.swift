import Foundation

/// What the sync layer keeps besides objects and pending changes, saved with the sync context so
/// that it survives a restart.
public struct SyncMetadata: Sendable, Hashable, Codable {
  /// The id of the last notification applied; the next fetch asks for those after it.
  public var lastNotificationID: UUID?
  /// The users whose profiles the sync layer still owes a fetch: named by news and unknown
  /// here, or contacts whose connection the news showed accepted.
  ///
  /// Saved with the cursor that moved past their news, and kept until a fetch of them is
  /// answered, so that neither a failed fetch nor a restart loses them.
  public var usersToFetch: Set<UUID>

  /// Creates metadata; nothing known by default.
  public init(lastNotificationID: UUID? = nil, usersToFetch: Set<UUID> = []) {
    self.lastNotificationID = lastNotificationID
    self.usersToFetch = usersToFetch
  }

  private enum CodingKeys: String, CodingKey {
    case lastNotificationID
    case usersToFetch
  }

  /// Reads metadata; a store written before ``usersToFetch`` existed owes no fetch.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    lastNotificationID = try container.decodeIfPresent(UUID.self, forKey: .lastNotificationID)
    usersToFetch = Set(
      try container.decodeIfPresent([UUID].self, forKey: .usersToFetch) ?? [])
  }

  /// Writes metadata, the users in id order so that equal metadata writes equal bytes.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(lastNotificationID, forKey: .lastNotificationID)
    try container.encode(usersToFetch.sorted(), forKey: .usersToFetch)
  }
}
