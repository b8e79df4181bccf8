import ConnectionParsing
import Foundation

/// One call of the Courier backend API, with its typed parameters and body: the contract the
/// client prints requests from and the fake backend parses them into, written once.
///
/// ```swift
/// let request = try Endpoint.postMessage(conversation: id, NewMessage(nonce: nonce, text: "Hi"))
///   .request()                        // POST /conversations/{id}/messages {"nonce", "text"}
/// let parsed = Endpoint.parse(method: "POST", segments: ["conversations", …], body: body)
/// ```
public enum Endpoint: Sendable, Hashable {
  /// `GET /self`: the signed-in user.
  case getSelf
  /// `PUT /self`: change the signed-in user's profile.
  case updateSelf(SelfUpdate)
  /// `GET /users?ids=a,b`: the users with these ids that the backend knows, at most
  /// ``maxUserIDs`` of them.
  case getUsers(ids: [UUID])
  /// `GET /users/{id}`: one user.
  case getUser(id: UUID)
  /// `GET /search/contacts?q=&size=`: users whose name or handle contains `query`.
  case searchContacts(query: String, size: Int)
  /// `GET /connections?size=&start=`: a page of the self user's connections.
  case getConnections(Paging)
  /// `POST /connections`: ask another user to connect.
  case requestConnection(ConnectionRequest)
  /// `PUT /connections/{user}`: move the self user's side of a connection to another status.
  case updateConnection(user: UUID, ConnectionUpdate)
  /// `GET /conversations?size=&start=`: a page of the self user's conversations.
  case getConversations(Paging)
  /// `POST /conversations`: create a group.
  case createConversation(NewConversation)
  /// `PUT /conversations/{id}`: rename a group.
  case renameConversation(id: UUID, ConversationRename)
  /// `POST /conversations/{id}/members`: add members.
  case addMembers(conversation: UUID, MemberList)
  /// `DELETE /conversations/{id}/members`: remove members; removing the self user leaves.
  case removeMembers(conversation: UUID, MemberList)
  /// `POST /conversations/{id}/messages`: send a message, identified by its nonce.
  case postMessage(conversation: UUID, NewMessage)
  /// `DELETE /conversations/{id}/messages/{nonce}`: delete one of the self user's messages for
  /// everyone.
  case deleteMessage(conversation: UUID, nonce: UUID)
  /// `GET /notifications?since=&size=`: the notifications after `since`, from the start if `nil`.
  case getNotifications(since: UUID?, size: Int)
  /// `GET /notifications/last`: the newest notification.
  case lastNotification
  /// `POST /login`: sign in by handle, for a bearer token that every later request carries.
  case signIn(SignIn)

  /// Which route the call takes, without its values.
  public var route: Route {
    switch self {
    case .getSelf: .getSelf
    case .updateSelf: .updateSelf
    case .getUsers: .getUsers
    case .getUser: .getUser
    case .searchContacts: .searchContacts
    case .getConnections: .getConnections
    case .requestConnection: .requestConnection
    case .updateConnection: .updateConnection
    case .getConversations: .getConversations
    case .createConversation: .createConversation
    case .renameConversation: .renameConversation
    case .addMembers: .addMembers
    case .removeMembers: .removeMembers
    case .postMessage: .postMessage
    case .deleteMessage: .deleteMessage
    case .getNotifications: .getNotifications
    case .lastNotification: .lastNotification
    case .signIn: .signIn
    }
  }
}

/// A page request: how many items, and after which one.
public struct Paging: Sendable, Hashable {
  /// The most items a page holds; the backend accepts 1…500.
  public var size: Int
  /// The id of the item the page starts after; from the beginning if `nil`.
  public var start: UUID?

  /// The sizes the backend accepts.
  public static let sizes = 1...500

  /// Creates a page request.
  public init(size: Int = 100, start: UUID? = nil) {
    self.size = size
    self.start = start
  }
}

extension Endpoint {
  /// The most users one ``getUsers(ids:)`` may ask for; the backend refuses a longer list, so
  /// a client asks for more in several calls.
  public static let maxUserIDs = 100
}

/// A route of the API: a method and a path template, such as `POST /conversations/{id}/messages`.
public enum Route: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// `GET /self`.
  case getSelf = "GET /self"
  /// `PUT /self`.
  case updateSelf = "PUT /self"
  /// `GET /users`.
  case getUsers = "GET /users"
  /// `GET /users/{id}`.
  case getUser = "GET /users/{id}"
  /// `GET /search/contacts`.
  case searchContacts = "GET /search/contacts"
  /// `GET /connections`.
  case getConnections = "GET /connections"
  /// `POST /connections`.
  case requestConnection = "POST /connections"
  /// `PUT /connections/{user}`.
  case updateConnection = "PUT /connections/{user}"
  /// `GET /conversations`.
  case getConversations = "GET /conversations"
  /// `POST /conversations`.
  case createConversation = "POST /conversations"
  /// `PUT /conversations/{id}`.
  case renameConversation = "PUT /conversations/{id}"
  /// `POST /conversations/{id}/members`.
  case addMembers = "POST /conversations/{id}/members"
  /// `DELETE /conversations/{id}/members`.
  case removeMembers = "DELETE /conversations/{id}/members"
  /// `POST /conversations/{id}/messages`.
  case postMessage = "POST /conversations/{id}/messages"
  /// `DELETE /conversations/{id}/messages/{nonce}`.
  case deleteMessage = "DELETE /conversations/{id}/messages/{nonce}"
  /// `GET /notifications`.
  case getNotifications = "GET /notifications"
  /// `GET /notifications/last`.
  case lastNotification = "GET /notifications/last"
  /// `POST /login`.
  case signIn = "POST /login"

  /// The method and the path template.
  public var description: String { rawValue }
}
