import HTTPRequest
import JSON
import Models

/// Pushes the self user's profile: `PUT /self` with the changed name, accent and handle.
public struct SelfUserStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Name, accent and handle.
  public var pushableKeys: Set<User.Key> { [.name, .accentID, .handle] }

  /// Only the self user's profile is pushed; other users belong to themselves.
  public func isSynchronised(_ object: User, in context: ModelContext) -> Bool { object.isSelf }

  /// `PUT /self` with exactly the changed keys; inserts and deletions of the self user are not
  /// the client's to make.
  public func request(for change: UpstreamChange<User>, in context: ModelContext) throws
    -> HTTPRequest?
  {
    guard change.kind == .update, let user = change.object else { return nil }
    var body: [String: JSONValue] = [:]
    for key in change.keys {
      switch key {
      case .name: body["name"] = .string(user.name)
      case .accentID: body["accent_id"] = .integer(user.accentID)
      case .handle: body["handle"] = user.handle.map(JSONValue.string) ?? .null
      case .email: break
      }
    }
    return try HTTPRequest(.put, "/self", json: .object(body))
  }
}
