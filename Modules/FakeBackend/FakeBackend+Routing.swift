import CourierAPI
import Foundation
import JSON
import ParsingCore
import Seams
import Transport
import UserParsing

/// The API contract the fake serves: every request is parsed into an `Endpoint`
/// (the same enum the client prints its requests from) and answered by the handler of its
/// resource. Errors answer `{"code", "label", "message"}`.
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
/// | `POST /conversations/{id}/members {users}` | 200 `{"user_ids"}` with a `conversation.member-join` event, 204 if all were members |
/// | `DELETE /conversations/{id}/members {users}` | 200 `{"user_ids"}` with a `conversation.member-leave` event, 204 if none were; removing self from a conversation self already left answers 204 |
/// | `POST /conversations/{id}/messages {nonce, text}` | 201 the message; the same nonce again answers 201 with the first message and creates nothing, even after a deletion |
/// | `DELETE /conversations/{id}/messages/{nonce}` | 204 and a `conversation.message-delete` event; 404 for an unknown or deleted message, 403 for another user's |
/// | `GET /notifications?since=&size=` | 200 `{"notifications": […], "has_more"}` after `since`; 404 `not-found` for an unknown `since` |
/// | `GET /notifications/last` | 200 the newest notification, 404 if there is none |
/// | `POST /login {handle}` | 200 `{"access_token", "user"}`; 403 `invalid-credentials` for an unknown handle |
/// | anything else | 404 `no-endpoint`, journalled as unmatched |
///
/// A request acts for the user its `Authorization: Bearer` token was handed out to by
/// `POST /login`; any other request acts for the self user (403 `no-self` when there is none),
/// unless `requiresSignIn` is set, when it is answered 401 `invalid-token`. Each user has a notification stream of their own,
/// holding the changes that concern them. `size` must be 1…500, else 400 `invalid-size`. A body
/// that is not the JSON an endpoint takes answers 400 `bad-request` naming every bad field.
extension FakeBackend {
  /// What a handler answers: a typed response with its status, or an error.
  enum Answer: Sendable {
    case ok(EndpointResponse, status: Int = 200)
    case error(Int, ErrorLabel, String)

    static func notFound(_ what: String) -> Answer {
      .error(404, .notFound, "\(what) does not exist")
    }

    static func badRequest(_ message: String) -> Answer {
      .error(400, .badRequest, message)
    }

    var response: TransportResponse {
      switch self {
      case .ok(let answer, let status):
        guard let json = answer.jsonValue else { return TransportResponse(status: 204) }
        return TransportResponse(status: status, json: json)
      case .error(let status, let label, let message):
        return FakeBackend.error(status, label: label, message: message)
      }
    }
  }

  /// The fake's answer to `endpoint`, typed, without the HTTP around it: no JSON is written or
  /// read, and no fault, delay or journal entry applies.
  ///
  /// For model-based tests and simulations, which call the server hundreds of thousands of
  /// times; everything else should go through ``transport`` or ``makeURLSession()``.
  public func answer(_ endpoint: Endpoint) -> Result<EndpointResponse, APIError> {
    answer(endpoint, idempotencyKey: nil).answer
  }

  /// Whether the server answered a request with `idempotencyKey` before, so that a repeat of it
  /// gets that first answer and nothing else.
  package func hasAnswered(idempotencyKey: String) -> Bool {
    state.withLock { $0.answersByIdempotencyKey[idempotencyKey] != nil }
  }

  /// The fake's answer to `endpoint` sent with `idempotencyKey`, typed, with the server's
  /// version once it had answered, and whether it was the first answer given again to a
  /// repeated key (then nothing was applied).
  public func answer(_ endpoint: Endpoint, idempotencyKey: String?) -> (
    answer: Result<EndpointResponse, APIError>, version: ServerVersion, isRepeat: Bool
  ) {
    answer(endpoint, as: nil, idempotencyKey: idempotencyKey)
  }

  /// The fake's answer to `endpoint` sent by `user` (the self user when `nil`) with
  /// `idempotencyKey`, typed, with the server's version once it had answered, and whether it
  /// was the first answer given again to a repeated key (then nothing was applied).
  ///
  /// For simulations of several clients, which act for different users without HTTP.
  public func answer(_ endpoint: Endpoint, as user: UUID?, idempotencyKey: String? = nil) -> (
    answer: Result<EndpointResponse, APIError>, version: ServerVersion, isRepeat: Bool
  ) {
    let (answer, version, isRepeat) = state.withLock { state -> (Answer, ServerVersion, Bool) in
      if case .signIn(let body) = endpoint {
        return (Self.signIn(body, &state), state.version, false)
      }
      guard let me = user ?? state.selfID else {
        return (.error(403, .noSelf, "no self user is set up"), state.version, false)
      }
      return Self.keyed(endpoint, key: idempotencyKey, for: me, in: &state)
    }
    switch answer {
    case .ok(let response, _): return (.success(response), version, isRepeat)
    case .error(let status, let label, let message):
      return (.failure(APIError(code: status, label: label, message: message)), version, isRepeat)
    }
  }

  /// Answers `endpoint` once per idempotency key: a repeat of `key` gets the first answer and
  /// its version, and changes nothing; a key used for another call is refused.
  static func keyed(_ endpoint: Endpoint, key: String?, for me: UUID, in state: inout ServerState)
    -> (Answer, ServerVersion, isRepeat: Bool)
  {
    guard endpoint.changesState, let key else {
      return (handle(endpoint, for: me, in: &state), state.version, false)
    }
    if let first = state.answersByIdempotencyKey[key] {
      guard first.endpoint == endpoint, first.user == me else {
        let refusal = Answer.error(
          422, .idempotencyKeyReused,
          "idempotency key \(key) was used for \(first.endpoint.route) before")
        return (refusal, state.version, false)
      }
      return (first.answer, first.version, true)
    }
    let answer = handle(endpoint, for: me, in: &state)
    state.answersByIdempotencyKey[key] = ServerState.KeyedAnswer(
      endpoint: endpoint, user: me, answer: answer, version: state.version)
    return (answer, state.version, false)
  }

  /// Answers `request` against `state`: the route's handler, or the error its parse gave.
  static func route(_ request: FakeRequest, in state: inout ServerState) -> TransportResponse {
    switch request.endpoint {
    case .failure(let error):
      return answer(to: error).response
    case .success(.signIn(let body)):
      return signIn(body, &state).response
    case .success(let endpoint):
      let me: UUID
      switch user(of: request, in: state) {
      case .success(let user): me = user
      case .failure(let refusal): return refusal.answer.response
      }
      guard endpoint.changesState else {
        return versioned(handle(endpoint, for: me, in: &state).response, state.version)
      }
      let key = request.headers[Endpoint.idempotencyKeyHeader.lowercased()]
      let (answer, version, _) = keyed(endpoint, key: key, for: me, in: &state)
      return versioned(answer.response, version)
    }
  }

  /// Why a request acts for nobody.
  struct Refusal: Error {
    let answer: Answer
  }

  /// The user `request` acts for: the one its bearer token was handed out to, else the self
  /// user, unless sign-in is required.
  static func user(of request: FakeRequest, in state: ServerState) -> Result<UUID, Refusal> {
    let authorization = request.headers["authorization"]
    let token = authorization.map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
    if let token, let user = state.tokens[token] { return .success(user) }
    if state.requiresSignIn {
      let problem = token == nil ? "no bearer token was sent" : "the bearer token is unknown"
      return .failure(Refusal(answer: .error(401, .invalidToken, "\(problem); sign in first")))
    }
    guard let me = state.selfID else {
      return .failure(Refusal(answer: .error(403, .noSelf, "no self user is set up")))
    }
    return .success(me)
  }

  /// Signs in the user with the body's handle, handing out a new bearer token.
  static func signIn(_ body: SignIn, _ state: inout ServerState) -> Answer {
    let handle = body.handle.lowercased()
    guard
      let user = state.userOrder.first(where: { state.users[$0]?.handle?.lowercased() == handle })
    else {
      return .error(403, .invalidCredentials, "no user has the handle \(body.handle)")
    }
    let token = state.uuids.next().lowercasedText
    state.tokens[token] = user
    return .ok(.signedIn(SignedIn(accessToken: token, user: user)))
  }

  /// `response` with the version the server reached once it answered: the version of the
  /// change the request made, or of the last change before it if it made none (for a read,
  /// the version of the state it read).
  static func versioned(_ response: TransportResponse, _ version: ServerVersion)
    -> TransportResponse
  {
    var headers = response.headers
    headers[ServerVersion.header] = String(version.rawValue)
    return TransportResponse(status: response.status, headers: headers, body: response.body)
  }

  static func handle(_ endpoint: Endpoint, for me: UUID, in state: inout ServerState)
    -> Answer
  {
    switch endpoint {
    case .getSelf: getSelf(me, state)
    case .updateSelf(let update): updateSelf(update, me, &state)
    case .getUsers(let ids): .ok(.users(ids.compactMap { state.users[$0] }))
    case .getUser(let id):
      state.users[id].map { .ok(.user($0)) } ?? .notFound("user \(id.lowercasedText)")
    case .searchContacts(let query, let size): searchContacts(query, size: size, me, state)
    case .getConnections(let paging): getConnections(paging, me, state)
    case .requestConnection(let body): requestConnection(body, me, &state)
    case .updateConnection(let user, let body): updateConnection(user, body.status, me, &state)
    case .getConversations(let paging): getConversations(paging, me, state)
    case .createConversation(let body): createConversation(body, me, &state)
    case .renameConversation(let id, let body): renameConversation(id, body.name, me, &state)
    case .addMembers(let id, let body): addMembers(body.users, to: id, me, &state)
    case .removeMembers(let id, let body): removeMembers(body.users, from: id, me, &state)
    case .postMessage(let id, let body): postMessage(body, in: id, me, &state)
    case .deleteMessage(let id, let nonce): deleteMessage(nonce, in: id, me, &state)
    case .getNotifications(let since, let size):
      getNotifications(since: since, size: size, state.streams[me] ?? [])
    case .lastNotification:
      state.streams[me]?.last.map { .ok(.notification($0)) } ?? .notFound("a notification")
    case .signIn(let body): signIn(body, &state)
    }
  }

  private static func answer(to error: RouteError) -> Answer {
    switch error {
    case .noRoute: .error(404, .noEndpoint, "\(error)")
    case .invalidBody, .invalidQuery: .badRequest("\(error)")
    case .invalidSize: .error(400, .invalidSize, "\(error)")
    case .invalidPathParameter: .error(404, .notFound, "\(error)")
    }
  }

  /// The page of `items` after the one whose id is `start`, and whether more follow.
  static func page<Item>(_ items: [Item], id: (Item) -> UUID, paging: Paging)
    -> Result<([Item], Bool), PageNotFound>
  {
    var rest = items[...]
    if let start = paging.start {
      guard let index = items.firstIndex(where: { id($0) == start }) else {
        return .failure(PageNotFound(start: start))
      }
      rest = items[(index + 1)...]
    }
    return .success((Array(rest.prefix(paging.size)), rest.count > paging.size))
  }

  /// A page was asked to start after an item that does not exist.
  struct PageNotFound: Error {
    let start: UUID
    var answer: Answer { .notFound("start \(start.lowercasedText)") }
  }

  static func error(_ status: Int, label: ErrorLabel, message: String) -> TransportResponse {
    TransportResponse(
      status: status, json: APIError(code: status, label: label, message: message).jsonValue)
  }
}
