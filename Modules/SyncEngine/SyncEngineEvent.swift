/// Something the engine did, for transcripts and logs.
public enum SyncEngineEvent: Sendable, Hashable, CustomStringConvertible {
  /// A request was answered (or failed): the request line and what came back.
  case request(String, outcome: String)
  /// Notifications were applied: how many events, and the id of the last one.
  case notifications(count: Int, lastID: String?)
  /// The engine went offline or came back.
  case connectivity(online: Bool)
  /// Something could not be applied; the engine goes on.
  case problem(String)

  /// Reads as `POST /connections → 201`.
  public var description: String {
    switch self {
    case .request(let line, let outcome): "\(line) → \(outcome)"
    case .notifications(let count, let lastID):
      "applied \(count) notification\(count == 1 ? "" : "s")"
        + (lastID.map { " (last \($0.prefix(8)))" } ?? "")
    case .connectivity(let online): online ? "back online" : "offline"
    case .problem(let text): "problem: \(text)"
    }
  }
}
