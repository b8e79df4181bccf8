import ConnectionParsing
import CourierAPI
import Models

/// Pushes the self user's connection requests: `POST /connections` for a new one,
/// `PUT /connections/{user}` for a change of status.
///
/// The backend never deletes a connection; a local deletion is refused at save (cancel or block
/// instead).
public struct ConnectionStrategy: UpstreamStrategy {
  /// Why a connection cannot be pushed.
  public struct InvalidStatus: Error, CustomStringConvertible {
    /// The status the backend cannot be asked for.
    public let status: Connection.Status
    /// Names the status.
    public var description: String { "the backend has no status \(status.rawValue)" }
  }

  /// Creates the strategy.
  public init() {}

  /// The status.
  public var pushableKeys: Set<Connection.Key> { [.status] }

  /// Only the self user's side of a connection is pushed; before the self user is known, a
  /// connection the app made counts as the self user's, so it is never dropped.
  public func isSynchronised(_ object: Connection, in context: ModelContext) -> Bool {
    context.selfUser.map { $0.id == object.from } ?? true
  }

  /// The call for a new connection or a new status.
  public func action(for change: UpstreamChange<Connection>, in context: ModelContext) throws
    -> UpstreamAction<Connection>
  {
    guard let connection = change.object else { return .localOnly }
    switch change.kind {
    case .insert:
      let request = ConnectionRequest(
        user: connection.to, name: context.user(of: connection)?.name ?? "",
        message: connection.message)
      // A request to connect is a sent request on the backend, whatever status the connection
      // has here: a status moved on before the request went (a request cancelled at once)
      // follows in an update, once this one is answered.
      var requested = connection
      requested.status = .sent
      return .send(.requestConnection(request), carrying: change.keys, sent: requested)
    case .update:
      guard let status = ConnectionStatus(rawValue: connection.status.rawValue) else {
        throw InvalidStatus(status: connection.status)
      }
      return .send(
        .updateConnection(user: connection.to, ConnectionUpdate(status: status)),
        carrying: [.status], sent: connection)
    case .delete:
      return .localOnly
    }
  }

  /// A request answered with an existing connection (a resend after a lost answer) is settled
  /// against the connection as the backend holds it.
  public func acknowledgement(
    of sent: SentChange<Connection>, response: EndpointResponse, in context: ModelContext
  ) -> Acknowledgement<Connection>? {
    guard case .connection(let payload) = response else { return nil }
    return Acknowledgement(PayloadMapping.connection(payload))
  }

  /// Takes the conversation and time the backend gave the connection.
  ///
  /// A new status the backend answered waits for its news (`SyncMetadata.valueChangesAwaitingNews`),
  /// so that older news of the connection, read first, leave it as the answer set it; so does
  /// one it answered it held already (`204`), which an earlier try or another device set.
  public func didSucceed(
    _ sent: SentChange<Connection>, response: EndpointResponse, in context: ModelContext
  ) {
    switch response {
    case .connection(let payload):
      let connection = PayloadMapping.connection(payload)
      // News the server applied after this request are newer than its answer.
      if sent.kind != .update || sent.heard.isEmpty { context.applyRemote(connection) }
      if sent.kind == .update { awaitNews(of: sent, status: connection.status, in: context) }
    case .noContent where sent.kind == .update:
      if let status = sent.sent?.status { awaitNews(of: sent, status: status, in: context) }
    default:
      break
    }
  }

  /// Records the status the backend holds after this request, unless its news may have been
  /// read already: news moved the status while the request was out, or the backend had, or may
  /// have had, that status when it went (its last known status, or one that news read while
  /// an earlier request was out, or a lost answer, left possible).
  ///
  /// Waiting for news already read would pass over the newer news of the connection that come
  /// next, for good (the user unblocks a contact whose unblock on another device was read while
  /// the user's block was out: a later block there would be lost).
  private func awaitNews(
    of sent: SentChange<Connection>, status: Connection.Status, in context: ModelContext
  ) {
    guard let before = sent.lastKnown, before.status != status,
      sent.unconfirmed.allSatisfy({ $0.status != status }),
      sent.heard.allSatisfy({ $0.status == before.status })
    else { return }
    context.syncMetadata.awaitNews(of: .connectionStatus(connection: sent.id, status: status))
  }
}
