import Foundation
import HTTPRequest
import Models
import SyncStrategies
import Transport

/// Something the engine did, as values: for transcripts, logs and tests.
public enum SyncEngineEvent: Sendable, Hashable, CustomStringConvertible {
  /// A request was answered, or failed without an answer.
  case request(HTTPRequest, RequestOutcome)
  /// Notifications were applied: how many, and the id of the last one.
  case notifications(count: Int, lastID: UUID?)
  /// The engine went offline or came back.
  case connectivity(online: Bool)
  /// The backend refused the app's credentials (a 401 a token refresh did not cure), or there
  /// were none to send: the engine paused as if offline and gave nothing up. Sign the user in
  /// again, then call ``SyncEngine/setOnline(_:)`` with `true`.
  case authenticationNeeded
  /// A local change was refused for good, or given up; the app may want to say so.
  case changeRefused(ObjectReference, reason: String, reverted: Bool)
  /// A local change was dropped unsent, because the backend removed the self user from the
  /// conversation it belongs to; the app may want to say so.
  case changeDropped(DroppedChange)
  /// The backend had forgotten the notifications after the cursor, and the engine caught up
  /// with what it holds now: news are read after `lastID`, and the conversations the backend
  /// no longer lists for the self user are dropped here.
  ///
  /// Messages posted in the news the backend forgot are not fetched again (the API has no
  /// message history), so an app may want to say that some may be missing.
  case caughtUp(lastID: UUID?, droppedConversations: Set<UUID>)
  /// Something could not be applied; the engine goes on.
  case problem(SyncProblem)

  /// Reads as `POST /connections → 201`.
  public var description: String {
    switch self {
    case .request(let request, let outcome): "\(request) → \(outcome)"
    case .notifications(let count, let lastID):
      "applied \(count) notification\(count == 1 ? "" : "s")"
        + (lastID.map { " (last \($0.uuidString.lowercased().prefix(8)))" } ?? "")
    case .connectivity(let online): online ? "back online" : "offline"
    case .authenticationNeeded: "paused: the backend needs the user to sign in again"
    case .changeRefused(let object, let reason, let reverted):
      "\(object) \(reverted ? "reverted" : "refused"): \(reason)"
    case .changeDropped(let change): "\(change)"
    case .caughtUp(let lastID, let dropped):
      "caught up with the backend"
        + (lastID.map { " (last \($0.uuidString.lowercased().prefix(8)))" } ?? "")
        + (dropped.isEmpty
          ? "" : ", \(dropped.count) conversation\(dropped.count == 1 ? "" : "s") dropped")
    case .problem(let problem): "problem: \(problem)"
    }
  }
}

/// How one request ended: a status, or a transport error instead of a response.
public enum RequestOutcome: Sendable, Hashable, CustomStringConvertible {
  /// The backend answered with this status.
  case status(Int)
  /// No answer came.
  case failed(TransportError)

  /// The status, or the error.
  public var description: String {
    switch self {
    case .status(let status): "\(status)"
    case .failed(let error): "\(error)"
    }
  }
}

/// Something the engine could not apply.
public enum SyncProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// A downstream answer could not be applied.
  case downstream(DownstreamError)
  /// Saving the sync context failed.
  case save(SaveError)

  /// Whether the problem passes by itself: the backend was briefly unable to answer (a 5xx,
  /// 408 or 429 status), and the next pull asks again.
  ///
  /// The engine logs a transient problem as a warning and every other one as an error, since
  /// an app must see it: data it could not read or could not store.
  public var isTransient: Bool {
    switch self {
    case .downstream(.status(_, let status, _)): status >= 500 || status == 408 || status == 429
    case .downstream, .save: false
    }
  }

  /// Names the problem.
  public var description: String {
    switch self {
    case .downstream(let error): "\(error)"
    case .save(let error): "\(error)"
    }
  }
}
