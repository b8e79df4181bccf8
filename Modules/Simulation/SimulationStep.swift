import FakeBackend
import Foundation
import Transport

/// One step of a simulated schedule: something the app's user does, something another user
/// does on the backend, a fault, time passing, or the app restarting.
///
/// Steps name objects by position (`group: 2` is the third group the client knows, counted
/// modulo how many there are), so a schedule can be replayed, and shortened, without the
/// generator: a step whose object is missing does nothing.
public enum SimulationStep: Sendable, Hashable, CustomStringConvertible {
  /// The self user's name changes.
  case renameSelf(String)
  /// The self user's accent changes.
  case changeAccent(Int)
  /// The self user asks a contact without a connection to connect.
  case requestConnection(contact: Int)
  /// The self user accepts a pending request from a contact.
  case acceptIncoming(contact: Int)
  /// The self user moves their connection with a contact on, as their app offers: blocks an
  /// accepted contact, unblocks a blocked one, ignores a pending request, accepts an ignored
  /// one, or cancels a request they sent.
  case changeConnection(contact: Int)
  /// The self user makes a group with some contacts.
  case createGroup(name: String, contacts: [Int])
  /// The self user renames a group.
  case renameGroup(group: Int, name: String)
  /// The self user adds a contact to a group, or removes one already in it.
  case toggleMember(group: Int, contact: Int)
  /// The self user leaves a group.
  case leaveGroup(group: Int)
  /// The self user writes in a conversation.
  case writeMessage(conversation: Int, text: String)
  /// The self user deletes their latest sent message in a conversation.
  case deleteMessage(conversation: Int)
  /// A contact asks the self user to connect, on their own device.
  case remoteRequest(contact: Int)
  /// A contact accepts the self user's request, on their own device.
  case remoteAccept(contact: Int)
  /// A contact withdraws the request they sent the self user, on their own device.
  case remoteCancelRequest(contact: Int)
  /// A contact writes in a conversation.
  case remotePost(conversation: Int, text: String)
  /// A contact deletes the latest message they wrote in a conversation, on their own device.
  case remoteDeleteMessage(conversation: Int)
  /// The self user deletes the latest message they wrote in a conversation, on another of
  /// their devices.
  case remoteDeleteOwnMessage(conversation: Int)
  /// A contact renames a group.
  case remoteRename(group: Int, name: String)
  /// A contact removes another member from a group.
  case remoteRemoveMember(group: Int, contact: Int)
  /// A member adds a contact who is not in a group to it; `contact` picks among those.
  case remoteAddMember(group: Int, contact: Int)
  /// A contact renames themselves on their own device, whether or not the self user is
  /// connected with them; `contact` picks one of the four by position.
  case remoteRenameContact(contact: Int, name: String)
  /// The self user renames themselves on another of their devices.
  case remoteRenameSelf(String)
  /// A contact removes the self user from a group.
  case remoteRemoveSelf(group: Int)
  /// A member adds the self user back to a group they left or were removed from; `group`
  /// picks one of those the backend holds without them, in the order of their ids.
  case remoteAddSelf(group: Int)
  /// The app fetches its notifications, as a push would make it.
  case pull
  /// The backend forgets every notification but the newest `keepingLast`, as one that keeps
  /// them for a limited time: an app whose cursor was among them catches up at its next pull.
  case expireNotifications(keepingLast: Int)
  /// The backend applies a fault to its next matching request.
  case fault(SimulatedFault)
  /// The backend releases one of the requests it holds, out of order.
  case releaseParked(Int)
  /// The backend refuses for good (a 400, unapplied) one of the requests it holds that is not
  /// a deletion: a refusal that comes after the user changed or deleted what it carried.
  case refuseParked(Int)
  /// The network goes away: requests fail at once, or hang until they expire.
  case goOffline(hanging: Bool)
  /// The network comes back, and the app is told so.
  case goOnline
  /// The clock moves on.
  case advance(milliseconds: Int)
  /// The app is killed and started again on its store.
  case restart
  /// The store refuses the app's next saves, whichever context makes them, as a full disk or a
  /// database another process holds would; it takes saves again after that many.
  case refuseSaves(Int)
  /// The app sends again every change the backend refused for good, as a user who taps retry.
  case retryRefused
  /// The app gives up every change the backend refused for good, as a user who dismisses them.
  case giveUpRefused

  /// The step, as a schedule prints it.
  public var description: String {
    switch self {
    case .renameSelf(let name): "rename self to \(name)"
    case .changeAccent(let accent): "change accent to \(accent)"
    case .requestConnection(let contact): "ask contact \(contact) to connect"
    case .acceptIncoming(let contact): "accept contact \(contact)'s request"
    case .changeConnection(let contact): "move the connection with contact \(contact) on"
    case .createGroup(let name, let contacts): "create group \(name) with contacts \(contacts)"
    case .renameGroup(let group, let name): "rename group \(group) to \(name)"
    case .toggleMember(let group, let contact): "toggle contact \(contact) in group \(group)"
    case .leaveGroup(let group): "leave group \(group)"
    case .writeMessage(let conversation, let text): "write \(text) in conversation \(conversation)"
    case .deleteMessage(let conversation):
      "delete the latest own message in conversation \(conversation)"
    case .remoteRequest(let contact): "contact \(contact) asks to connect"
    case .remoteAccept(let contact): "contact \(contact) accepts"
    case .remoteCancelRequest(let contact): "contact \(contact) withdraws their request"
    case .remotePost(let conversation, let text):
      "a contact writes \(text) in conversation \(conversation)"
    case .remoteDeleteMessage(let conversation):
      "a contact deletes their latest message in conversation \(conversation)"
    case .remoteDeleteOwnMessage(let conversation):
      "the self user deletes their latest message in conversation \(conversation) on another device"
    case .remoteRename(let group, let name): "a contact renames group \(group) to \(name)"
    case .remoteRemoveMember(let group, let contact):
      "a contact removes contact \(contact) from group \(group)"
    case .remoteAddMember(let group, let contact):
      "a member adds contact \(contact) to group \(group)"
    case .remoteRenameContact(let contact, let name):
      "contact \(contact) renames themselves to \(name)"
    case .remoteRenameSelf(let name):
      "the self user renames themselves to \(name) on another device"
    case .remoteRemoveSelf(let group): "a contact removes the self user from group \(group)"
    case .remoteAddSelf(let group): "a contact adds the self user back to left group \(group)"
    case .pull: "pull notifications"
    case .expireNotifications(let kept):
      "the backend forgets all but the newest \(kept) notifications"
    case .fault(let fault): "the next request gets \(fault)"
    case .releaseParked(let index): "release parked request \(index)"
    case .refuseParked(let index): "refuse parked request \(index)"
    case .goOffline(let hanging):
      hanging ? "go offline (requests hang)" : "go offline (requests fail)"
    case .goOnline: "come back online"
    case .advance(let milliseconds): "advance the clock by \(milliseconds) ms"
    case .restart: "kill and restart the app"
    case .refuseSaves(let count):
      "the store refuses the next \(count == 1 ? "save" : "\(count) saves")"
    case .retryRefused: "retry every refused change"
    case .giveUpRefused: "give up every refused change"
    }
  }
}

/// A fault the simulated backend applies to one request.
public enum SimulatedFault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// A 503.
  case serverError
  /// A 429 with `Retry-After: 2`.
  case tooManyRequests
  /// The connection drops before the request reaches the backend.
  case networkLoss
  /// The backend applies the request, then the answer is lost.
  case lostResponse
  /// The answer comes 1.5 s later.
  case delay
  /// The request is held until a step releases it, out of order with others.
  case park
  /// The answer's body is not JSON.
  case malformedBody
  /// A 400: the backend refuses the next request that is not a deletion for good, without
  /// applying it. This backend refuses a deletion only when the user may no longer make it (a
  /// message in a group they left, a 403, which schedules reach by themselves); leaving a group
  /// it does not hold or that was left already is a 404 or a 204. A 400 for a deletion would
  /// stand for no backend there is.
  case refusal
  /// The backend applies the request at once and holds its answer until a step releases it:
  /// answers that overtake each other on their way back. Drawn by a roll of its own (see
  /// ``SimulationOptions/heldAnswers``), not among the other faults.
  case heldAnswer
  /// A 401: the backend no longer knows who asks, so the engine waits for the app to sign its
  /// user in again, which the next step that brings the network back stands for. Drawn by a
  /// roll of its own (see ``SimulationOptions/signOuts``), not among the other faults.
  case signedOut

  /// Which requests the fault may hit: the next one, or for a refusal the next that is not a
  /// deletion.
  var matcher: RequestMatcher {
    self == .refusal ? .any(except: "DELETE") : .any
  }

  /// The fake backend's fault.
  var fault: Fault {
    switch self {
    case .serverError: .status(503)
    case .tooManyRequests: .status(429, retryAfter: 2)
    case .networkLoss: .network(.connectionLost)
    case .lostResponse: .loseResponse
    case .delay: .delay(.milliseconds(1_500))
    case .park: .park
    case .malformedBody: .malformedBody
    case .refusal: .status(400)
    case .heldAnswer: .holdAnswer
    case .signedOut: .status(401)
    }
  }

  /// The fault's name.
  public var description: String { rawValue }
}
