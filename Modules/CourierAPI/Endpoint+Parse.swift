import Foundation
import HTTPRequest
import JSON
import ParsingCore

extension Endpoint {
  /// The call an incoming request makes, read from its method, decoded path segments, decoded
  /// query and body: the inverse of ``request()``, which the fake backend's router switches over.
  public static func parse(
    method: String, segments: [String], query: [QueryItem] = [], body: Data? = nil
  ) -> Result<Endpoint, RouteError> {
    let method = method.uppercased()
    let path = "/" + segments.joined(separator: "/")
    guard let (route, captures) = Route.match(method: method, segments: segments) else {
      return .failure(.noRoute(method: method, path: path))
    }
    let input = Input(route: route, captures: captures, query: query, body: body)
    do throws(RouteError) {
      return .success(try input.endpoint())
    } catch {
      return .failure(error)
    }
  }
}

extension Route {
  /// Every route's method and path segments, split once; `{…}` marks a segment with a value.
  private static let templates: [(route: Route, method: String, segments: [String])] =
    allCases.map { route in
      let parts = route.rawValue.split(separator: " ", maxSplits: 1)
      let path = parts.dropFirst().first ?? ""
      return (route, String(parts.first ?? ""), path.split(separator: "/").map(String.init))
    }

  /// The route that `method` and `segments` take, with the values of its `{…}` segments.
  static func match(method: String, segments: [String]) -> (Route, [String])? {
    for template in templates
    where template.method == method && template.segments.count == segments.count {
      var captures: [String] = []
      var matches = true
      for (pattern, segment) in zip(template.segments, segments) {
        if pattern.hasPrefix("{") {
          captures.append(segment)
        } else if pattern != segment {
          matches = false
          break
        }
      }
      if matches { return (template.route, captures) }
    }
    return nil
  }
}

/// One incoming request matched to its route, read into the route's typed values.
private struct Input {
  let route: Route
  let captures: [String]
  let query: [QueryItem]
  let body: Data?

  func endpoint() throws(RouteError) -> Endpoint {
    switch route {
    case .getSelf: return .getSelf
    case .updateSelf: return .updateSelf(try decode(SelfUpdate.self))
    case .getUsers:
      guard let list = value("ids") else {
        throw .invalidQuery(
          route, name: "ids", expected: "a comma-separated list of ids", found: nil)
      }
      var ids: [UUID] = []
      for text in list.split(separator: ",") {
        guard let id = UUID(text: String(text)) else {
          throw .invalidQuery(
            route, name: "ids", expected: "a comma-separated list of ids", found: list)
        }
        ids.append(id)
      }
      guard ids.count <= Endpoint.maxUserIDs else {
        throw .invalidQuery(
          route, name: "ids", expected: "at most \(Endpoint.maxUserIDs) ids",
          found: "\(ids.count) ids")
      }
      return .getUsers(ids: ids)
    case .getUser: return .getUser(id: try id(at: 0, name: "user id"))
    case .searchContacts:
      return .searchContacts(query: value("q") ?? "", size: try size(default: 10))
    case .getConnections: return .getConnections(try paging())
    case .requestConnection: return .requestConnection(try decode(ConnectionRequest.self))
    case .updateConnection:
      return .updateConnection(
        user: try id(at: 0, name: "user id"), try decode(ConnectionUpdate.self))
    case .getConversations: return .getConversations(try paging())
    case .createConversation: return .createConversation(try decode(NewConversation.self))
    case .renameConversation:
      return .renameConversation(
        id: try id(at: 0, name: "conversation id"), try decode(ConversationRename.self))
    case .addMembers:
      return .addMembers(
        conversation: try id(at: 0, name: "conversation id"), try decode(MemberList.self))
    case .removeMembers:
      return .removeMembers(
        conversation: try id(at: 0, name: "conversation id"), try decode(MemberList.self))
    case .postMessage:
      return .postMessage(
        conversation: try id(at: 0, name: "conversation id"), try decode(NewMessage.self))
    case .deleteMessage:
      return .deleteMessage(
        conversation: try id(at: 0, name: "conversation id"), nonce: try id(at: 1, name: "nonce"))
    case .getNotifications:
      let since: UUID?
      if let text = value("since") {
        guard let id = UUID(text: text) else {
          throw .invalidQuery(route, name: "since", expected: "a notification id", found: text)
        }
        since = id
      } else {
        since = nil
      }
      return .getNotifications(since: since, size: try size(default: 100))
    case .lastNotification: return .lastNotification
    case .signIn: return .signIn(try decode(SignIn.self))
    }
  }

  private func value(_ name: String) -> String? { query.first { $0.name == name }?.value }

  private func id(at index: Int, name: String) throws(RouteError) -> UUID {
    let text = captures[index]
    guard let id = UUID(text: text) else {
      throw .invalidPathParameter(route, name: name, found: text)
    }
    return id
  }

  private func size(default fallback: Int) throws(RouteError) -> Int {
    guard let text = value("size") else { return fallback }
    guard let size = Int(text), Paging.sizes.contains(size) else {
      throw .invalidSize(route, found: text)
    }
    return size
  }

  private func paging() throws(RouteError) -> Paging {
    let size = try size(default: 100)
    guard let text = value("start") else { return Paging(size: size) }
    guard let start = UUID(text: text) else {
      throw .invalidQuery(route, name: "start", expected: "an id", found: text)
    }
    return Paging(size: size, start: start)
  }

  private func decode<Body: PayloadConvertible>(_ type: Body.Type) throws(RouteError) -> Body {
    do {
      return try Body.parse(body ?? Data())
    } catch {
      throw .invalidBody(route, error)
    }
  }
}
