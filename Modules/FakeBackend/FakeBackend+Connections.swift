import ConnectionParsing
import CourierAPI
import Foundation
import JSON
import ParsingCore

/// The fake's handlers for connection requests.
extension FakeBackend {
  static func getConnections(_ paging: Paging, _ me: UUID, _ state: ServerState) -> Answer {
    let mine = state.connectionOrder.filter { $0.from == me }.compactMap { state.connections[$0] }
    switch page(mine, id: \.to, paging: paging) {
    case .failure(let missing): return missing.answer
    case .success(let (items, hasMore)):
      return .ok(.connections(Page(elements: items, failures: [], hasMore: hasMore)))
    }
  }

  static func requestConnection(
    _ body: ConnectionRequest, _ me: UUID, _ state: inout ServerState
  ) -> Answer {
    guard body.user != me else { return .badRequest("cannot connect to yourself") }
    guard state.users[body.user] != nil else {
      return .notFound("user \(body.user.lowercasedText)")
    }
    if let existing = state.connections[.init(from: me, to: body.user)] {
      return .ok(.connection(existing))
    }
    guard let connection = state.requestConnection(from: me, to: body.user, message: body.message)
    else { return .notFound("connection") }
    if state.contactsAcceptRequests {
      // The answer says "sent", as a real backend's would; the acceptance follows as events.
      state.changeConnection(of: body.user, with: me, to: .accepted)
    }
    return .ok(.connection(connection), status: 201)
  }

  static func updateConnection(
    _ other: UUID, _ next: ConnectionStatus, _ me: UUID, _ state: inout ServerState
  ) -> Answer {
    guard let current = state.connections[.init(from: me, to: other)] else {
      return .notFound("connection to \(other.lowercasedText)")
    }
    if next == current.status { return .ok(.noContent) }
    guard ServerState.allows(current.status, next) else {
      return .error(
        403, .badConnectionUpdate,
        "cannot change a connection from \(current.status.rawValue) to \(next.rawValue)")
    }
    state.changeConnection(of: me, with: other, to: next)
    return state.connections[.init(from: me, to: other)].map { .ok(.connection($0)) }
      ?? .notFound("connection")
  }
}
