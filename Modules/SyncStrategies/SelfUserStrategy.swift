import CourierAPI
import Models
import ParsingCore

/// Pushes the self user's profile: `PUT /self` with the changed name, accent and handle.
public struct SelfUserStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Name, accent and handle.
  public var pushableKeys: Set<User.Key> { [.name, .accentID, .handle] }

  /// Only the self user's profile is pushed; other users belong to themselves.
  public func isSynchronised(_ object: User, in context: ModelContext) -> Bool { object.isSelf }

  /// `PUT /self` with exactly the changed keys, all in one request; inserts and deletions of the
  /// self user are not the client's to make.
  public func action(for change: UpstreamChange<User>, in context: ModelContext)
    -> UpstreamAction<User>
  {
    guard change.kind == .update, let user = change.object else { return .localOnly }
    var update = SelfUpdate()
    for key in change.keys {
      switch key {
      case .name: update.name = user.name
      case .accentID: update.accentID = user.accentID
      case .handle: update.handle = user.handle.map { .set($0) } ?? .remove
      case .email: break
      }
    }
    return .send(.updateSelf(update), carrying: change.keys, sent: user)
  }

  /// Records the keys the backend took at the answer's version, so that older news of them,
  /// read after the answer, leave them as the answer set them (`SyncMetadata.awaitedNews`).
  public func didSucceed(
    _ sent: SentChange<User>, response: EndpointResponse, in context: ModelContext
  ) {
    guard sent.kind == .update else { return }
    let version = sent.version?.rawValue
    for key in sent.keys {
      switch key {
      case .name: context.syncMetadata.awaitNews(of: .selfName, answeredAt: version)
      case .accentID: context.syncMetadata.awaitNews(of: .accent, answeredAt: version)
      case .handle: context.syncMetadata.awaitNews(of: .handle, answeredAt: version)
      default: break
      }
    }
  }

}
