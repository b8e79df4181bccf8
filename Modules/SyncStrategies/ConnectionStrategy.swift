import ConnectionParsing
import HTTPRequest
import JSON
import Models
import ParsingCore
import Transport

/// Pushes the self user's connection requests: `POST /connections` for a new one,
/// `PUT /connections/{user}` for a change of status.
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

  /// Only the self user's side of a connection is pushed.
  public func isSynchronised(_ object: Connection, in context: ModelContext) -> Bool {
    context.selfUser.map { $0.id == object.from } ?? false
  }

  /// The request for a new connection or a new status.
  public func request(for change: UpstreamChange<Connection>, in context: ModelContext) throws
    -> HTTPRequest?
  {
    guard let connection = change.object else { return nil }
    switch change.kind {
    case .insert:
      var body: [String: JSONValue] = [
        "user": connection.to.jsonValue,
        "name": .string(context.user(of: connection)?.name ?? ""),
      ]
      if let message = connection.message { body["message"] = .string(message) }
      return try HTTPRequest(.post, "/connections", json: .object(body))
    case .update:
      guard connection.status != .invalid else { throw InvalidStatus(status: connection.status) }
      return try HTTPRequest(
        .put, "/connections/\(connection.to)", json: ["status": .string(connection.status.rawValue)]
      )
    case .delete:
      return nil
    }
  }

  /// Takes the conversation and time the backend gave the connection.
  public func didSucceed(
    _ change: UpstreamChange<Connection>, response: TransportResponse, in context: ModelContext
  ) {
    guard let json = try? response.json(), let payload = try? ConnectionPayload.parse(json) else {
      return
    }
    context.applyRemote(PayloadMapping.connection(payload))
  }
}
