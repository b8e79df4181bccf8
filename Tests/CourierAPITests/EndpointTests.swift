import ConnectionParsing
import ConversationParsing
import CourierAPI
import EventParsing
import Foundation
import HTTPRequest
import JSON
import ParsingCore
import TestSupport
import Testing
import UserParsing

/// One example of every endpoint, with values that exercise its encoding (reserved characters,
/// optional fields present and absent).
let everyEndpoint: [Endpoint] = [
  .getSelf,
  .updateSelf(SelfUpdate(name: "Ada", accentID: 3, handle: .set("ada"))),
  .updateSelf(SelfUpdate(handle: .remove)),
  .getUsers(ids: [UUID(1), UUID(2)]),
  .getUsers(ids: (1...Endpoint.maxUserIDs).map { UUID(UInt64($0)) }),
  .getUser(id: UUID(3)),
  .searchContacts(query: "ann & bob/?#", size: 5),
  .getConnections(Paging()),
  .getConnections(Paging(size: 7, start: UUID(4))),
  .requestConnection(ConnectionRequest(user: UUID(5), name: "Ann", message: "Hi")),
  .requestConnection(ConnectionRequest(user: UUID(5), name: "Ann")),
  .updateConnection(user: UUID(6), ConnectionUpdate(status: .blocked)),
  .getConversations(Paging(size: 500, start: UUID(7))),
  .createConversation(NewConversation(id: UUID(8), name: "Lunch", users: [UUID(1), UUID(2)])),
  .createConversation(NewConversation(id: nil, name: nil, users: [])),
  .renameConversation(id: UUID(9), ConversationRename(name: "Dinner")),
  .addMembers(conversation: UUID(10), MemberList(users: [UUID(1)])),
  .removeMembers(conversation: UUID(10), MemberList(users: [UUID(2), UUID(3)])),
  .postMessage(conversation: UUID(11), NewMessage(nonce: UUID(12), text: "Hello, world")),
  .deleteMessage(conversation: UUID(11), nonce: UUID(12)),
  .getNotifications(since: nil, size: 100),
  .getNotifications(since: UUID(13), size: 1),
  .lastNotification,
  .signIn(SignIn(handle: "ann")),
]

@Suite("Endpoint", .tags(.transport, .encoding, .parsing), .timeBudget(.seconds(5)))
struct EndpointTests {
  /// What the fake backend sees of a request: its decoded path segments, query and body.
  static func incoming(_ request: HTTPRequest) -> (String, [String], [QueryItem], Data?) {
    let body: Data? =
      switch request.body {
      case .json(let value)?: Data(value.serialized())
      case .raw(let data, _)?: data
      case nil: nil
      }
    return (request.method.rawValue, request.path.segments, request.query, body)
  }

  /// A comma-separated list of `count` distinct ids, as `GET /users` reads them.
  static func ids(_ count: Int) -> String {
    (1...count).map { UUID(UInt64($0)).lowercasedText }.joined(separator: ",")
  }

  @Test(
    "Every endpoint printed as a request parses back to the same endpoint", arguments: everyEndpoint
  )
  func roundTrip(endpoint: Endpoint) throws {
    // given
    let (method, segments, query, body) = Self.incoming(try endpoint.request())

    // when
    let parsed = Endpoint.parse(method: method, segments: segments, query: query, body: body)

    // then
    #expect(parsed == .success(endpoint))
  }

  @Test("The examples cover every route")
  func everyRouteCovered() {
    // when
    let covered = Set(everyEndpoint.map(\.route))

    // then
    #expect(covered == Set(Route.allCases))
  }

  @Test(
    "A request prints the method and the path of its route",
    arguments: zip(
      [
        Endpoint.getSelf, .getUser(id: UUID(3)),
        .deleteMessage(conversation: UUID(1), nonce: UUID(2)),
        .searchContacts(query: "a b", size: 5), .getNotifications(since: UUID(1), size: 10),
      ],
      [
        "GET /self", "GET /users/00000000-0000-0000-0000-000000000003",
        "DELETE /conversations/00000000-0000-0000-0000-000000000001/messages/00000000-0000-0000-0000-000000000002",
        "GET /search/contacts?q=a%20b&size=5",
        "GET /notifications?since=00000000-0000-0000-0000-000000000001&size=10",
      ]))
  func printed(endpoint: Endpoint, line: String) throws {
    // when
    let request = try endpoint.request()

    // then
    #expect(request.description == line)
  }

  @Test(
    "A request that is no call of the API, or a bad one, gets a typed error naming what is wrong and the route it was meant for",
    arguments: zip(
      [
        ("GET", ["nothing"], [], nil), ("DELETE", ["self"], [], nil),
        ("PUT", ["self"], [], Data(#"{"name": "  "}"#.utf8)),
        (
          "POST", ["conversations", "00000000-0000-0000-0000-000000000001", "messages"], [],
          Data(#"{"text": "hi"}"#.utf8)
        ),
        ("GET", ["connections"], [QueryItem("size", "0")], nil),
        ("GET", ["users"], [], nil),
        ("GET", ["users"], [QueryItem("ids", EndpointTests.ids(Endpoint.maxUserIDs + 1))], nil),
        ("GET", ["users", "not-an-id"], [], nil),
        ("PUT", ["connections", "00000000-0000-0000-0000-000000000001"], [], Data("{}".utf8)),
      ] as [(String, [String], [QueryItem], Data?)],
      [
        ("no endpoint for GET /nothing", nil), ("no endpoint for DELETE /self", nil),
        (
          "PUT /self: payload has 1 bad field:\n  - 'name': invalid value, expected non-blank string, found \"  \"",
          .updateSelf
        ),
        (
          "POST /conversations/{id}/messages: payload has 1 bad field:\n  - 'nonce': missing, expected UUID string, found nothing",
          .postMessage
        ),
        ("GET /connections: size must be 1…500, got 0", .getConnections),
        (
          "GET /users: query item 'ids' must be a comma-separated list of ids, found nothing",
          .getUsers
        ),
        (
          "GET /users: query item 'ids' must be at most 100 ids, found '101 ids'",
          .getUsers
        ),
        ("GET /users/{id}: 'not-an-id' is not a valid user id", .getUser),
        (
          "PUT /connections/{user}: payload has 1 bad field:\n  - 'status': missing, expected one of \"accepted\", \"pending\", \"blocked\", \"ignored\", \"sent\", \"cancelled\", \"missing-legalhold-consent\", found nothing",
          .updateConnection
        ),
      ] as [(String, Route?)]))
  func refused(
    request: (String, [String], [QueryItem], Data?), expected: (message: String, route: Route?)
  ) {
    // when
    let parsed = Endpoint.parse(
      method: request.0, segments: request.1, query: request.2, body: request.3)

    // then
    #expect(parsed.failureDescription == expected.message)
    if case .failure(let error) = parsed { #expect(error.route == expected.route) }
  }
}

@Suite("EndpointResponse", .tags(.transport, .parsing), .timeBudget(.seconds(5)))
struct EndpointResponseTests {
  static let time = Date(timeIntervalSince1970: 1_800_000_000)
  static let user = UserPayload(id: UUID(1), name: "Ada", handle: "ada", accentID: 2)
  static let message = MessagePayload(
    nonce: UUID(2), conversation: UUID(3), from: UUID(1), text: "Hi", time: time)
  static let connection = ConnectionPayload(
    from: UUID(1), to: UUID(4), status: .sent, conversation: UUID(3), lastUpdate: time)
  static let conversation = ConversationPayload(
    id: UUID(3), type: .group, name: "Lunch", creator: UUID(1), selfMember: UUID(1),
    otherMembers: [UUID(4)], lastEventTime: time)
  static let notification = NotificationPayload(
    id: UUID(5),
    events: [
      .messageDelete(
        ConversationEvent(conversation: UUID(3), from: UUID(1), time: time, data: UUID(2)))
    ])

  static let answers: [(Endpoint, EndpointResponse)] = [
    (.getSelf, .user(user)),
    (.getUsers(ids: [UUID(1)]), .users([user])),
    (
      .searchContacts(query: "a", size: 5),
      .contacts(ContactSearch(documents: [user], returned: 1, found: 3))
    ),
    (.requestConnection(ConnectionRequest(user: UUID(4), name: "Ann")), .connection(connection)),
    (
      .getConnections(Paging()),
      .connections(Page(elements: [connection], failures: [], hasMore: true))
    ),
    (
      .createConversation(NewConversation(id: UUID(3), name: "Lunch", users: [])),
      .conversation(conversation)
    ),
    (
      .getConversations(Paging()),
      .conversations(Page(elements: [conversation], failures: [], hasMore: false))
    ),
    (
      .renameConversation(id: UUID(3), ConversationRename(name: "Dinner")),
      .renamed(ConversationRename(name: "Dinner"))
    ),
    (
      .addMembers(conversation: UUID(3), MemberList(users: [UUID(4)])),
      .membersChanged(MembersChanged(userIDs: [UUID(4)]))
    ),
    (
      .postMessage(conversation: UUID(3), NewMessage(nonce: UUID(2), text: "Hi")), .message(message)
    ),
    (
      .getNotifications(since: nil, size: 100),
      .notifications(Page(elements: [notification], failures: [], hasMore: false))
    ),
    (.lastNotification, .notification(notification)),
  ]

  @Test(
    "Every typed answer encoded by the backend decodes back to the same answer", arguments: answers)
  func roundTrip(endpoint: Endpoint, answer: EndpointResponse) throws {
    // given
    let body = Data(try #require(answer.jsonValue).serialized())

    // when
    let decoded = endpoint.decodeResponse(status: 200, body: body)

    // then
    #expect(decoded == .success(answer))
  }

  @Test("A 204 is no content, and a body that is not the endpoint's payload is a typed error")
  func noContentAndBadBodies() {
    // when
    let empty = Endpoint.deleteMessage(conversation: UUID(1), nonce: UUID(2)).decodeResponse(
      status: 204, body: Data())
    let malformed = Endpoint.getSelf.decodeResponse(
      status: 200, body: Data("{\"truncated\": ".utf8))
    let refused = Endpoint.getSelf.decodeResponse(status: 404, body: Data())

    // then
    #expect(empty == .success(.noContent))
    #expect(
      malformed.failureDescription?.hasPrefix("GET /self answered an unreadable body") == true)
    #expect(refused == .failure(.notSuccess(.getSelf, status: 404)))
  }

  @Test("An error answer reads back with its label, kept even when this client does not know it")
  func errors() throws {
    // given
    let body = Data(#"{"code": 418, "label": "teapot", "message": "no coffee"}"#.utf8)

    // when
    let error = try APIError.parse(body)

    // then
    #expect(error == APIError(code: 418, label: "teapot", message: "no coffee"))
    #expect(error.description == "418 teapot: no coffee")
    #expect(ErrorLabel.notFound.rawValue == "not-found")
  }
}

extension Result {
  /// The failure's description, or `nil` for a success.
  var failureDescription: String? {
    if case .failure(let error) = self { return "\(error)" }
    return nil
  }
}
