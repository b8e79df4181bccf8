import ConversationParsing
import CourierAPI
import EventParsing
import FakeBackend
import Foundation
import Models
import ParsingCore
import SyncEngine
import SyncStrategies
import UserParsing

extension DeviceSimulator {
  /// Says which device's notification cursor moved back in its user's stream, if one did: after
  /// any page of news it applied since the last check, or where it stands now.
  func cursorMovedBack() async -> String? {
    for index in devices.indices {
      let stream = fake.notifications(of: devices[index].user)
      let now = await devices[index].app.engine.lastNotificationID
      for id in devices[index].link.takeCursors() + (now.map { [$0] } ?? []) {
        if let broken = devices[index].cursor.move(to: id, in: stream) {
          return "device \(index): \(broken)"
        }
      }
    }
    return nil
  }

  /// Says which context of which device shows a name that the server set before a name the
  /// context showed already, if one does.
  ///
  /// The names followed are every user's and the group's, in the UI context and the sync
  /// context, across restarts of the app. A name the server never set (the user's own, not
  /// sent yet) says nothing about the order and is passed over; every step writes a new name,
  /// so a name's server version is known from the notifications that told it.
  func olderValueShown() async -> String? {
    let users = Array(fake.snapshot.users.keys)
    let group = group
    let streams = Set(devices.map(\.user)).map { ($0, fake.notifications(of: $0)) }
    for index in devices.indices {
      for (user, stream) in streams { devices[index].names.read(stream, of: user) }
      let ui = Self.names(in: devices[index].app.stack.ui.context, users: users, group: group)
      let sync = await devices[index].app.stack.sync.perform { context in
        Self.names(in: context, users: users, group: group)
      }
      for (context, names) in [("UI", ui), ("sync", sync)] {
        for (id, name) in names.sorted(by: { $0.key < $1.key }) {
          if let problem = devices[index].names.show(name, of: id, in: context) {
            return "device \(index): \(id == group ? "the group" : "user \(id)"): \(problem)"
          }
        }
      }
    }
    return nil
  }

  /// The names `context` shows for `users` and the group, by id.
  private nonisolated static func names(in context: ModelContext, users: [UUID], group: UUID)
    -> [UUID: String]
  {
    var names: [UUID: String] = [:]
    for user in users {
      if let name = context.object(User.self, id: user)?.name { names[user] = name }
    }
    if let name = context.object(Conversation.self, id: group)?.name { names[group] = name }
    return names
  }

  /// Says where a device's UI differs from what the backend holds for its user, or what it has
  /// left to send; `nil` when every device agrees with the backend.
  func differences() async -> String? {
    let server = fake.snapshot
    for (index, device) in devices.enumerated() {
      let ui = device.app.stack.ui.context
      let queue = await device.app.engine.queue()
      if !queue.isEmpty { return "device \(index) has work left at the end: \(queue)" }
      let me = ui.object(User.self, id: device.user)
      if me?.name != server.user(device.user)?.name {
        return "device \(index) shows its user as \(me?.name ?? "nobody"), the backend as "
          + "\(server.user(device.user)?.name ?? "nobody")"
      }
      for user in server.users.keys where user != device.user {
        let shown = ui.object(User.self, id: user)
        if let shown, shown.name != server.user(user)?.name {
          return "device \(index) shows user \(server.user(user)?.handle ?? "?") as "
            + "\(shown.name), the backend as \(server.user(user)?.name ?? "nobody")"
        }
      }
      guard let held = server.conversation(group), held.members.contains(device.user) else {
        continue
      }
      guard let shown = ui.object(Conversation.self, id: group) else {
        return "device \(index) does not show the group its user is a member of"
      }
      if shown.name != held.name || shown.participantIDs != held.members {
        return "device \(index) shows the group as \(shown.name ?? "unnamed") with "
          + "\(shown.participantIDs.count) members, the backend as \(held.name ?? "unnamed") "
          + "with \(held.members.count)"
      }
      let shownMessages = Set(ui.messages(inConversationWithID: group).map(\.nonce))
      let heldMessages = Set(server.messages(in: group).map(\.nonce))
      if shownMessages != heldMessages {
        return "device \(index) shows \(shownMessages.count) messages in the group, the backend "
          + "holds \(heldMessages.count)"
      }
    }
    return nil
  }

  /// Names a change of one device the backend applied twice, if there is one, and counts the
  /// messages posted again after a restart in `exempted`.
  ///
  /// A request whose idempotency key came before is a repeat, answered without applying it;
  /// every other accepted request of a rename or a message applied its change, and so did one
  /// whose answer the backend lost. A rename sent again goes under its first key, in the same
  /// life of the app or after a restart, so one applied twice is a violation, named as undoing
  /// another device's change if one came in between. A message whose creation's answer was
  /// lost goes again after a restart under a new key: its nonce keeps it once on the backend, so
  /// such a message is counted, not a violation.
  func appliedTwice(exempted: inout Int) -> DeviceViolation? {
    var keys: Set<String> = []
    var applied: [String: Int] = [:]
    /// The journal index of the last change applied to each target (a route and a path).
    var lastChange: [String: (index: Int, token: String)] = [:]
    var previousChange: [Int: (index: Int, token: String)] = [:]
    for entry in fake.journal {
      // A lost answer counts as what the server answered: only the answer went missing.
      guard entry.succeeded, let route = entry.route,
        [.updateSelf, .renameConversation, .postMessage].contains(route)
      else { continue }
      if let key = entry.request.headers["idempotency-key"], !keys.insert(key).inserted {
        continue
      }
      let token = entry.request.headers["authorization"] ?? "self"
      let body = entry.request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
      let change = "\(token) \(entry.request) \(body)"
      // What a later change could have undone: the user's profile, the group's name, or for
      // a message only the message itself.
      let target =
        switch route {
        case .updateSelf: "\(token) \(entry.request)"
        case .postMessage: change
        default: "\(entry.request)"
        }
      previousChange[entry.index] = lastChange[target]
      lastChange[target] = (entry.index, token)
      guard let first = applied[change] else {
        applied[change] = entry.index
        continue
      }
      let twice = "(journal #\(first) and #\(entry.index)): \(entry.request) \(body)"
      if route == .postMessage, restarted(token, between: first, and: entry.index) {
        exempted += 1
        continue
      }
      if let previous = previousChange[entry.index], previous.index > first,
        previous.token != token
      {
        return DeviceViolation(
          kind: .resentOverLaterChange,
          detail: "a change sent again undid another device's later change \(twice)")
      }
      return DeviceViolation(
        kind: .appliedTwice, detail: "the backend applied one change twice \(twice)")
    }
    return nil
  }

  /// Whether the device signed in with `token` restarted between the journal entries `first`
  /// and `second`.
  private func restarted(_ token: String, between first: Int, and second: Int) -> Bool {
    guard let device = devices.firstIndex(where: { "Bearer \($0.link.token ?? "")" == token })
    else { return false }
    return devices[device].restartedAt.contains { $0 > first && $0 <= second }
  }

  /// How many accepted requests repeated an idempotency key that came before.
  func countRepeats() -> Int {
    var keys: Set<String> = []
    var repeats = 0
    for entry in fake.journal {
      guard let key = entry.request.headers["idempotency-key"] else { continue }
      if !keys.insert(key).inserted { repeats += 1 }
    }
    return repeats
  }
}
