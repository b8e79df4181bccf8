import Foundation

/// What the sync layer keeps besides objects and pending changes, saved with the sync context so
/// that it survives a restart.
public struct SyncMetadata: Sendable, Hashable, Codable {
  /// The id of the last notification applied; the next fetch asks for those after it.
  public var lastNotificationID: UUID?

  /// Creates metadata; nothing known by default.
  public init(lastNotificationID: UUID? = nil) {
    self.lastNotificationID = lastNotificationID
  }
}
