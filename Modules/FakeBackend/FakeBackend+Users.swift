import CourierAPI
import Foundation
import JSON
import UserParsing

/// The fake's handlers for the self user, users and contact search.
extension FakeBackend {
  static func getSelf(_ me: UUID, _ state: ServerState) -> Answer {
    state.users[me].map { .ok(.user($0)) } ?? .notFound("the self user")
  }

  static func updateSelf(_ update: SelfUpdate, _ me: UUID, _ state: inout ServerState) -> Answer {
    state.updateUser(me, update)
    return getSelf(me, state)
  }

  static func searchContacts(_ query: String, size: Int, _ me: UUID, _ state: ServerState)
    -> Answer
  {
    let query = query.lowercased()
    let found = state.userOrder.compactMap { state.users[$0] }.filter { user in
      user.id != me
        && (user.name.lowercased().contains(query)
          || (user.handle ?? "").lowercased().contains(query))
    }
    let documents = Array(found.prefix(size))
    return .ok(
      .contacts(ContactSearch(documents: documents, returned: documents.count, found: found.count)))
  }
}
