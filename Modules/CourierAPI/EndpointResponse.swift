import ConnectionParsing
import ConversationParsing
import EventParsing
import Foundation
import JSON
import ParsingCore
import UserParsing

/// What a successful call answers, typed by endpoint: the client decodes it with
/// ``Endpoint/decodeResponse(status:body:)`` and the fake backend encodes it with ``jsonValue``.
public enum EndpointResponse: Sendable, Equatable {
  /// A user: `GET /self`, `PUT /self`, `GET /users/{id}`.
  case user(UserPayload)
  /// Users: `GET /users`.
  case users([UserPayload])
  /// Search results: `GET /search/contacts`.
  case contacts(ContactSearch)
  /// A connection: `POST /connections`, `PUT /connections/{user}`.
  case connection(ConnectionPayload)
  /// A page of connections: `GET /connections`.
  case connections(Page<ConnectionPayload>)
  /// A conversation: `POST /conversations`.
  case conversation(ConversationPayload)
  /// A page of conversations: `GET /conversations`.
  case conversations(Page<ConversationPayload>)
  /// The new name: `PUT /conversations/{id}`.
  case renamed(ConversationRename)
  /// The users whose membership changed: adding or removing members.
  case membersChanged(MembersChanged)
  /// A message: `POST /conversations/{id}/messages`.
  case message(MessagePayload)
  /// A page of notifications: `GET /notifications`.
  case notifications(Page<NotificationPayload>)
  /// One notification: `GET /notifications/last`.
  case notification(NotificationPayload)
  /// A bearer token and the user it stands for: `POST /login`.
  case signedIn(SignedIn)
  /// Nothing to say (204): nothing changed, or a deletion went through.
  case noContent

  /// The body the backend sends, or `nil` for ``noContent``.
  public var jsonValue: JSONValue? {
    switch self {
    case .user(let user): user.jsonValue
    case .users(let users): .array(users.map(\.jsonValue))
    case .contacts(let search): search.jsonValue
    case .connection(let connection): connection.jsonValue
    case .connections(let page): page.jsonValue(listKey: ConnectionPayload.pageKey)
    case .conversation(let conversation): conversation.jsonValue
    case .conversations(let page): page.jsonValue(listKey: ConversationPayload.pageKey)
    case .renamed(let rename): rename.jsonValue
    case .membersChanged(let change): change.jsonValue
    case .message(let message): message.jsonValue
    case .notifications(let page): page.jsonValue(listKey: NotificationPayload.pageKey)
    case .notification(let notification): notification.jsonValue
    case .signedIn(let session): session.jsonValue
    case .noContent: nil
    }
  }
}

/// Why a successful status came with a body the endpoint does not answer with.
public enum ResponseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The body is not the payload the endpoint answers with.
  case payload(Route, PayloadError)
  /// The status is not one of success.
  case notSuccess(Route, status: Int)
  /// An answer to a change does not say the server's version (`Courier-Version`), which places
  /// it among the notifications heard while it was out.
  case missingVersion(Route)

  /// Names the route and the problem.
  public var description: String {
    switch self {
    case .payload(let route, let error): "\(route) answered an unreadable body: \(error)"
    case .notSuccess(let route, let status): "\(route) answered \(status), not a success"
    case .missingVersion(let route): "\(route) answered without the server's version"
    }
  }
}

extension Endpoint {
  /// The typed answer to this call from a successful status and its body.
  public func decodeResponse(status: Int, body: Data) -> Result<EndpointResponse, ResponseError> {
    guard (200..<300).contains(status) else { return .failure(.notSuccess(route, status: status)) }
    if status == 204 { return .success(.noContent) }
    do throws(PayloadError) {
      return .success(try decodeBody(body))
    } catch {
      return .failure(.payload(route, error))
    }
  }

  private func decodeBody(_ body: Data) throws(PayloadError) -> EndpointResponse {
    switch route {
    case .getSelf, .updateSelf, .getUser: return .user(try UserPayload.parse(body))
    case .getUsers:
      let list = try PayloadError.decode(body, limits: .standard)
      guard case .array(let elements) = list else { throw .notAnObject(found: list.kind) }
      var users: [UserPayload] = []
      for element in elements { users.append(try UserPayload.parse(element)) }
      return .users(users)
    case .searchContacts: return .contacts(try ContactSearch.parse(body))
    case .requestConnection, .updateConnection:
      return .connection(try ConnectionPayload.parse(body))
    case .getConnections:
      return .connections(try Page.parse(body, listKey: ConnectionPayload.pageKey))
    case .createConversation: return .conversation(try ConversationPayload.parse(body))
    case .getConversations:
      return .conversations(try Page.parse(body, listKey: ConversationPayload.pageKey))
    case .renameConversation: return .renamed(try ConversationRename.parse(body))
    case .addMembers, .removeMembers: return .membersChanged(try MembersChanged.parse(body))
    case .postMessage: return .message(try MessagePayload.parse(body))
    case .deleteMessage: return .noContent
    case .getNotifications:
      return .notifications(try Page.parse(body, listKey: NotificationPayload.pageKey))
    case .lastNotification: return .notification(try NotificationPayload.parse(body))
    case .signIn: return .signedIn(try SignedIn.parse(body))
    }
  }
}

/// The answer of a contact search: the users found, how many are in this answer, and how many
/// matched in all.
public struct ContactSearch: PayloadConvertible, Hashable {
  /// The users in this answer.
  public var documents: [UserPayload]
  /// How many users are in this answer.
  public var returned: Int
  /// How many users matched.
  public var found: Int

  /// Creates search results.
  public init(documents: [UserPayload], returned: Int, found: Int) {
    self.documents = documents
    self.returned = returned
    self.found = found
  }

  /// Reads every field, recording each bad one.
  public static func read(from reader: inout ObjectReader) -> ContactSearch? {
    let documents = reader.payloads("documents", UserPayload.self)
    let returned = reader.integer("returned")
    let found = reader.integer("found")
    guard let documents, let returned, let found else { return nil }
    return ContactSearch(documents: documents, returned: returned, found: found)
  }

  /// The results as the backend writes them.
  public var jsonValue: JSONValue {
    [
      "documents": .array(documents.map(\.jsonValue)), "returned": .integer(returned),
      "found": .integer(found),
    ]
  }
}
