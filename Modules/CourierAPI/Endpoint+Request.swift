import HTTPRequest
import JSON
import ParsingCore

extension Endpoint {
  /// The request that makes this call: the one place a route's method, path, query and body
  /// are written for the client.
  public func request() throws(HTTPRequestError) -> HTTPRequest {
    switch self {
    case .getSelf:
      try HTTPRequest(.get, "/self")
    case .updateSelf(let update):
      try HTTPRequest(.put, "/self", json: update.jsonValue)
    case .getUsers(let ids):
      try HTTPRequest(
        .get, "/users", query: [QueryItem("ids", ids.map(\.lowercasedText).joined(separator: ","))])
    case .getUser(let id):
      try HTTPRequest(.get, "/users/\(id.lowercasedText)")
    case .searchContacts(let query, let size):
      try HTTPRequest(
        .get, "/search/contacts", query: [QueryItem("q", query), QueryItem("size", "\(size)")])
    case .getConnections(let paging):
      try HTTPRequest(.get, "/connections", query: paging.queryItems)
    case .requestConnection(let body):
      try HTTPRequest(.post, "/connections", json: body.jsonValue)
    case .updateConnection(let user, let body):
      try HTTPRequest(.put, "/connections/\(user.lowercasedText)", json: body.jsonValue)
    case .getConversations(let paging):
      try HTTPRequest(.get, "/conversations", query: paging.queryItems)
    case .createConversation(let body):
      try HTTPRequest(.post, "/conversations", json: body.jsonValue)
    case .renameConversation(let id, let body):
      try HTTPRequest(.put, "/conversations/\(id.lowercasedText)", json: body.jsonValue)
    case .addMembers(let id, let body):
      try HTTPRequest(.post, "/conversations/\(id.lowercasedText)/members", json: body.jsonValue)
    case .removeMembers(let id, let body):
      try HTTPRequest(.delete, "/conversations/\(id.lowercasedText)/members", json: body.jsonValue)
    case .postMessage(let id, let body):
      try HTTPRequest(.post, "/conversations/\(id.lowercasedText)/messages", json: body.jsonValue)
    case .deleteMessage(let id, let nonce):
      try HTTPRequest(
        .delete, "/conversations/\(id.lowercasedText)/messages/\(nonce.lowercasedText)")
    case .getNotifications(let since, let size):
      try HTTPRequest(
        .get, "/notifications",
        query: (since.map { [QueryItem("since", $0.lowercasedText)] } ?? [])
          + [QueryItem("size", "\(size)")])
    case .lastNotification:
      try HTTPRequest(.get, "/notifications/last")
    case .signIn(let body):
      try HTTPRequest(.post, "/login", json: body.jsonValue)
    }
  }
}

extension Paging {
  /// The query items of a page request; the start only when there is one.
  var queryItems: [QueryItem] {
    [QueryItem("size", "\(size)")] + (start.map { [QueryItem("start", $0.lowercasedText)] } ?? [])
  }
}
