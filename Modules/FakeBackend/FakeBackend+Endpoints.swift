import ConnectionParsing
import ConversationParsing
import EventParsing
import Foundation
import HTTPRequest
import JSON
import ParsingCore
import Transport
import UserParsing

/// The API contract the fake serves, endpoint by endpoint. Errors answer
/// `{"code", "label", "message"}`.
///
/// | endpoint | answer |
/// |---|---|
/// | `GET /self` | 200 the self user |
/// | `PUT /self {name?, accent_id?, handle?}` | 200 the user; a `user.update` event |
/// | `GET /users?ids=a,b` | 200 `[user]` (unknown ids left out) |
/// | `GET /users/{id}` | 200 the user, 404 `not-found` |
/// | `GET /search/contacts?q=&size=` | 200 `{"documents": [user], "returned", "found"}`: users other than self whose name or handle contains `q`, case-insensitively |
/// | `GET /connections?size=&start=` | 200 `{"connections": […], "has_more"}`, self's connections in creation order after the one to `start` |
/// | `POST /connections {user, name, message?}` | 201 the sent connection (200 if one exists); a pending one for the other user and a connection conversation; 404 for an unknown user, 400 for self |
/// | `PUT /connections/{user} {status}` | 200 the connection, 204 if unchanged, 403 `bad-conn-update` for a refused transition |
/// | `GET /conversations?size=&start=` | 200 `{"conversations": […], "has_more"}`, self's conversations |
/// | `POST /conversations {id?, name, users}` | 201 a group with self and `users`, with the client's `id` if given; the same `id` again answers 200 with the group (409 `id-taken` if someone else made it) |
/// | `PUT /conversations/{id} {name}` | 200 `{"name"}`; a `conversation.rename` event |
/// | `POST /conversations/{id}/members {users}` | 200 with a `conversation.member-join` event, 204 if all were members |
/// | `DELETE /conversations/{id}/members {users}` | 200 with a `conversation.member-leave` event, 204 if none were |
/// | `POST /conversations/{id}/messages {nonce, text}` | 201 the message; the same nonce again answers 201 with the first message and creates nothing |
/// | `GET /notifications?since=&size=` | 200 `{"notifications": […], "has_more"}` after `since`; 404 `not-found` for an unknown `since` |
/// | `GET /notifications/last` | 200 the newest notification, 404 if there is none |
/// | anything else | 404 `no-endpoint`, journalled as unmatched |
///
/// `size` must be 1…500 (default 100), else 400 `invalid-size`. Everything but `/self` needs a
/// self user set up first (403 `no-self`). A body that is not the JSON an endpoint needs answers
/// 400 `bad-request` naming the field.
extension FakeBackend {
  struct Endpoint: Sendable {
    let name: String
    let handle: @Sendable (FakeRequest, inout ServerState, UUID) -> TransportResponse
  }

  /// A response an endpoint's helper answers with before the endpoint gets to its work.
  struct EarlyResponse: Error {
    let response: TransportResponse
  }

  static let endpoints: [(RequestMatcher, Endpoint)] = [
    (RequestMatcher("GET", "/self"), Endpoint(name: "GET /self", handle: getSelf)),
    (RequestMatcher("PUT", "/self"), Endpoint(name: "PUT /self", handle: putSelf)),
    (RequestMatcher("GET", "/users"), Endpoint(name: "GET /users", handle: getUsers)),
    (RequestMatcher("GET", "/users/*"), Endpoint(name: "GET /users/{id}", handle: getUser)),
    (
      RequestMatcher("GET", "/search/contacts"),
      Endpoint(name: "GET /search/contacts", handle: searchContacts)
    ),
    (
      RequestMatcher("GET", "/connections"),
      Endpoint(name: "GET /connections", handle: getConnections)
    ),
    (
      RequestMatcher("POST", "/connections"),
      Endpoint(name: "POST /connections", handle: postConnection)
    ),
    (
      RequestMatcher("PUT", "/connections/*"),
      Endpoint(name: "PUT /connections/{user}", handle: putConnection)
    ),
    (
      RequestMatcher("GET", "/conversations"),
      Endpoint(name: "GET /conversations", handle: getConversations)
    ),
    (
      RequestMatcher("POST", "/conversations"),
      Endpoint(name: "POST /conversations", handle: postConversation)
    ),
    (
      RequestMatcher("PUT", "/conversations/*"),
      Endpoint(name: "PUT /conversations/{id}", handle: renameConversation)
    ),
    (
      RequestMatcher("POST", "/conversations/*/members"),
      Endpoint(name: "POST /conversations/{id}/members", handle: addMembers)
    ),
    (
      RequestMatcher("DELETE", "/conversations/*/members"),
      Endpoint(name: "DELETE /conversations/{id}/members", handle: removeMembers)
    ),
    (
      RequestMatcher("POST", "/conversations/*/messages"),
      Endpoint(name: "POST /conversations/{id}/messages", handle: postMessage)
    ),
    (
      RequestMatcher("GET", "/notifications/last"),
      Endpoint(name: "GET /notifications/last", handle: lastNotification)
    ),
    (
      RequestMatcher("GET", "/notifications"),
      Endpoint(name: "GET /notifications", handle: getNotifications)
    ),
  ]

  static func endpoint(for request: FakeRequest) -> Endpoint? {
    endpoints.first { $0.0.matches(request) }?.1
  }

  /// Runs `endpoint`, the one that matched `request`, against `state`; no endpoint answers 404
  /// `no-endpoint`.
  static func route(_ request: FakeRequest, to endpoint: Endpoint?, in state: inout ServerState)
    -> TransportResponse
  {
    guard let endpoint else {
      return error(
        404, label: "no-endpoint", message: "no endpoint for \(request.method) \(request.path)")
    }
    guard let selfID = state.selfID else {
      return error(403, label: "no-self", message: "no self user is set up")
    }
    return endpoint.handle(request, &state, selfID)
  }

  // MARK: - Helpers

  private static func ok(_ json: JSONValue, status: Int = 200) -> TransportResponse {
    TransportResponse(status: status, json: json)
  }

  private static func badRequest(_ message: String) -> TransportResponse {
    error(400, label: "bad-request", message: message)
  }

  private static func notFound(_ what: String) -> TransportResponse {
    error(404, label: "not-found", message: "\(what) does not exist")
  }

  private static func uuid(_ text: String?) -> UUID? { text.flatMap { UUID(text: $0) } }

  private static func uuids(_ value: JSONValue?) -> [UUID]? {
    value?.arrayValue?.map { $0.stringValue.flatMap { UUID(text: $0) } }.reduce([UUID]()) {
      guard let list = $0, let id = $1 else { return nil }
      return list + [id]
    }
  }

  /// The page of `items` after the one whose id is `start`, and whether more follow.
  private static func page<Item>(
    _ items: [Item], id: (Item) -> String, request: FakeRequest
  ) -> Result<([Item], Bool), EarlyResponse> {
    let sizeText = request.queryValue("size") ?? "100"
    guard let size = Int(sizeText), (1...500).contains(size) else {
      return .failure(
        EarlyResponse(
          response: error(
            400, label: "invalid-size", message: "size must be 1…500, got \(sizeText)")))
    }
    var rest = items[...]
    if let start = request.queryValue("start") {
      guard let index = items.firstIndex(where: { id($0) == start.lowercased() }) else {
        return .failure(EarlyResponse(response: notFound("start \(start)")))
      }
      rest = items[(index + 1)...]
    }
    return .success((Array(rest.prefix(size)), rest.count > size))
  }

  // MARK: - Users

  private static func getSelf(_: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    state.users[me].map { ok($0.jsonValue) } ?? notFound("the self user")
  }

  private static func putSelf(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    guard let body = request.json?.objectValue else {
      return badRequest("the body must be an object")
    }
    let name = body["name"]?.stringValue
    if body["name"] != nil && (name ?? "").allSatisfy(\.isWhitespace) {
      return badRequest("'name' must be a non-empty string")
    }
    var accent: Int?
    if let value = body["accent_id"] {
      guard case .integer(let number) = value else {
        return badRequest("'accent_id' must be an integer")
      }
      accent = number
    }
    state.updateUser(me, name: name, accentID: accent, handle: body["handle"]?.stringValue)
    return getSelf(request, &state, me)
  }

  private static func getUsers(_ request: FakeRequest, _ state: inout ServerState, _: UUID)
    -> TransportResponse
  {
    guard let list = request.queryValue("ids") else { return badRequest("'ids' is required") }
    let ids = list.split(separator: ",").compactMap { UUID(text: String($0)) }
    return ok(.array(ids.compactMap { state.users[$0]?.jsonValue }))
  }

  private static func getUser(_ request: FakeRequest, _ state: inout ServerState, _: UUID)
    -> TransportResponse
  {
    guard let id = uuid(request.segments[1]), let user = state.users[id] else {
      return notFound("user \(request.segments[1])")
    }
    return ok(user.jsonValue)
  }

  private static func searchContacts(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    let query = (request.queryValue("q") ?? "").lowercased()
    let size = Int(request.queryValue("size") ?? "10") ?? 10
    let found = state.userOrder.compactMap { state.users[$0] }.filter { user in
      user.id != me
        && (user.name.lowercased().contains(query)
          || (user.handle ?? "").lowercased().contains(query))
    }
    let documents = found.prefix(max(size, 0)).map {
      JSONValue.object([
        "id": $0.id.jsonValue, "name": .string($0.name), "accent_id": .integer($0.accentID),
        "handle": $0.handle.map(JSONValue.string) ?? .null,
      ])
    }
    return ok([
      "documents": .array(Array(documents)), "returned": .integer(documents.count),
      "found": .integer(found.count),
    ])
  }

  // MARK: - Connections

  private static func getConnections(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    let mine = state.connectionOrder.filter { $0.from == me }.compactMap { state.connections[$0] }
    switch page(mine, id: { $0.to.lowercasedText }, request: request) {
    case .failure(let early): return early.response
    case .success(let (items, hasMore)):
      return ok(["connections": .array(items.map(\.jsonValue)), "has_more": .bool(hasMore)])
    }
  }

  private static func postConnection(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    guard let body = request.json, let other = uuid(body["user"]?.stringValue) else {
      return badRequest("'user' must be a user id")
    }
    guard other != me else { return badRequest("cannot connect to yourself") }
    guard state.users[other] != nil else {
      return notFound("user \(other.lowercasedText)")
    }
    if let existing = state.connections[.init(from: me, to: other)] {
      return ok(existing.jsonValue)
    }
    guard
      let connection = state.requestConnection(
        from: me, to: other, message: body["message"]?.stringValue)
    else { return notFound("connection") }
    return ok(connection.jsonValue, status: 201)
  }

  private static func putConnection(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    guard let other = uuid(request.segments[1]),
      let current = state.connections[.init(from: me, to: other)]
    else { return notFound("connection to \(request.segments[1])") }
    guard let text = request.json?["status"]?.stringValue,
      let next = ConnectionStatus(rawValue: text)
    else { return badRequest("'status' must be a connection status") }
    if next == current.status { return TransportResponse(status: 204) }
    guard ServerState.allows(current.status, next) else {
      return error(
        403, label: "bad-conn-update",
        message: "cannot change a connection from \(current.status.rawValue) to \(next.rawValue)")
    }
    state.changeConnection(of: me, with: other, to: next)
    return state.connections[.init(from: me, to: other)].map { ok($0.jsonValue) }
      ?? notFound("connection")
  }

  // MARK: - Conversations

  private static func getConversations(
    _ request: FakeRequest, _ state: inout ServerState, _ me: UUID
  )
    -> TransportResponse
  {
    let mine = state.conversationOrder.compactMap { state.conversations[$0] }
      .filter { $0.members.contains(me) }
    switch page(mine, id: { $0.id.lowercasedText }, request: request) {
    case .failure(let early): return early.response
    case .success(let (items, hasMore)):
      return ok([
        "conversations": .array(items.map { state.conversationPayload($0, for: me).jsonValue }),
        "has_more": .bool(hasMore),
      ])
    }
  }

  private static func postConversation(
    _ request: FakeRequest, _ state: inout ServerState, _ me: UUID
  )
    -> TransportResponse
  {
    guard let body = request.json, let users = uuids(body["users"] ?? []) else {
      return badRequest("'users' must be a list of user ids")
    }
    let name = body["name"]?.stringValue
    if let name, name.allSatisfy(\.isWhitespace) { return badRequest("'name' must not be empty") }
    let chosenID = uuid(body["id"]?.stringValue)
    if let chosenID, let existing = state.conversations[chosenID] {
      guard existing.creator == me else {
        return error(409, label: "id-taken", message: "the id is taken")
      }
      return ok(state.conversationPayload(existing, for: me).jsonValue)
    }
    if let unknown = users.first(where: { state.users[$0] == nil }) {
      return notFound("user \(unknown.lowercasedText)")
    }
    let conversation = state.createConversation(
      id: chosenID, type: .group, name: name, creator: me, members: users)
    return ok(state.conversationPayload(conversation, for: me).jsonValue, status: 201)
  }

  private static func memberConversation(_ request: FakeRequest, _ state: ServerState, _ me: UUID)
    -> Result<UUID, EarlyResponse>
  {
    guard let id = uuid(request.segments[1]), let conversation = state.conversations[id] else {
      return .failure(EarlyResponse(response: notFound("conversation \(request.segments[1])")))
    }
    guard conversation.members.contains(me) else {
      return .failure(
        EarlyResponse(response: error(403, label: "access-denied", message: "self is not a member"))
      )
    }
    return .success(id)
  }

  private static func renameConversation(
    _ request: FakeRequest, _ state: inout ServerState, _ me: UUID
  )
    -> TransportResponse
  {
    let id: UUID
    switch memberConversation(request, state, me) {
    case .failure(let early): return early.response
    case .success(let found): id = found
    }
    guard let name = request.json?["name"]?.stringValue, !name.allSatisfy(\.isWhitespace) else {
      return badRequest("'name' must be a non-empty string")
    }
    state.rename(id, to: name, by: me)
    return ok(["name": .string(name)])
  }

  private static func addMembers(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    changeMembers(request, &state, me) { state, users, id in state.addMembers(users, to: id, by: me)
    }
  }

  private static func removeMembers(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    changeMembers(request, &state, me) { state, users, id in
      state.removeMembers(users, from: id, by: me)
    }
  }

  private static func changeMembers(
    _ request: FakeRequest, _ state: inout ServerState, _ me: UUID,
    _ change: (inout ServerState, [UUID], UUID) -> [UUID]
  ) -> TransportResponse {
    let id: UUID
    switch memberConversation(request, state, me) {
    case .failure(let early): return early.response
    case .success(let found): id = found
    }
    guard let users = uuids(request.json?["users"]), !users.isEmpty else {
      return badRequest("'users' must be a non-empty list of user ids")
    }
    if let unknown = users.first(where: { state.users[$0] == nil }) {
      return notFound("user \(unknown.lowercasedText)")
    }
    let changed = change(&state, users, id)
    guard !changed.isEmpty else { return TransportResponse(status: 204) }
    return ok(["user_ids": .array(changed.map(\.jsonValue))])
  }

  private static func postMessage(_ request: FakeRequest, _ state: inout ServerState, _ me: UUID)
    -> TransportResponse
  {
    let id: UUID
    switch memberConversation(request, state, me) {
    case .failure(let early): return early.response
    case .success(let found): id = found
    }
    guard let body = request.json, let nonce = uuid(body["nonce"]?.stringValue) else {
      return badRequest("'nonce' must be a UUID")
    }
    guard let text = body["text"]?.stringValue, !text.allSatisfy(\.isWhitespace) else {
      return badRequest("'text' must be a non-empty string")
    }
    let (message, _) = state.post(nonce: nonce, text: text, in: id, from: me)
    return ok(message.jsonValue, status: 201)
  }

  // MARK: - Notifications

  private static func getNotifications(_ request: FakeRequest, _ state: inout ServerState, _: UUID)
    -> TransportResponse
  {
    var request = request
    if let since = request.queryValue("since") {
      guard
        state.notifications.contains(where: { $0.id.lowercasedText == since.lowercased() })
      else { return notFound("notification \(since)") }
      request = FakeRequest(
        method: request.method, segments: request.segments,
        query: request.query.map { $0.name == "since" ? QueryItem("start", $0.value) : $0 },
        headers: request.headers, body: request.body)
    }
    switch page(state.notifications, id: { $0.id.lowercasedText }, request: request) {
    case .failure(let early): return early.response
    case .success(let (items, hasMore)):
      return ok(["notifications": .array(items.map(\.jsonValue)), "has_more": .bool(hasMore)])
    }
  }

  private static func lastNotification(_: FakeRequest, _ state: inout ServerState, _: UUID)
    -> TransportResponse
  {
    state.notifications.last.map { ok($0.jsonValue) } ?? notFound("a notification")
  }
}
