import CourierAPI
import Models

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

  /// Records the values the backend took whose news cannot have been read yet, so that older
  /// news of those keys, read before them, leave the keys as the answer set them
  /// (`SyncMetadata.valueChangesAwaitingNews`).
  ///
  /// A key that news changed while the request was out, or that the backend already held with
  /// the value sent, is not recorded: its news may have been read already.
  public func didSucceed(
    _ sent: SentChange<User>, response: EndpointResponse, in context: ModelContext
  ) {
    guard sent.kind == .update, let user = sent.sent, let before = sent.lastKnown else { return }
    let path = [before] + sent.heard
    func unheard<Value: Equatable>(_ value: (User) -> Value) -> Bool {
      value(before) != value(user)
        && zip(path, path.dropFirst()).allSatisfy { value($0) == value($1) }
    }
    for key in [User.Key.name, .accentID, .handle] where sent.keys.contains(key) {
      switch key {
      case .name where unheard(\.name):
        context.syncMetadata.awaitNews(of: .selfName(user.name))
      case .accentID where unheard(\.accentID):
        context.syncMetadata.awaitNews(of: .accent(user.accentID))
      case .handle where unheard(\.handle):
        if let handle = user.handle { context.syncMetadata.awaitNews(of: .handle(handle)) }
      default:
        break
      }
    }
  }
}
