import ConnectionParsing
import CourierAPI
import Models
import ParsingCore

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

  /// Takes the conversation and time the backend gave the connection; a new status it answered
  /// awaits its news at the answer's version (`SyncMetadata.awaitedNews`), so that older news of
  /// the connection, read after the answer, leave it as the answer set it.
  public func didSucceed(
    _ sent: SentChange<Connection>, response: EndpointResponse, in context: ModelContext
  ) {
    if case .connection(let payload) = response {
      // News the server applied after this request are newer than its answer.
      if sent.kind != .update || sent.heard.isEmpty {
        context.applyRemote(PayloadMapping.connection(payload))
      }
    }
    if sent.kind == .update, sent.keys.contains(.status) {
      context.syncMetadata.awaitNews(
        of: .connectionStatus(sent.id), answeredAt: sent.version?.rawValue)
    }
  }
}
