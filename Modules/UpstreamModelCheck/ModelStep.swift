import Foundation

/// One step of a generated sequence run against the upstream tracker.
///
/// The user's edits are made in the UI context and saved by a ``save`` step, so one save may
/// carry several edits, of several keys and objects.
public enum ModelStep: Sendable, CustomStringConvertible {
  /// The user renames themselves in the UI.
  case renameSelf(String)
  /// The user picks another accent colour in the UI.
  case changeAccent(Int)
  /// The user renames a group (by its index among the model's groups).
  case renameGroup(Int, String)
  /// The user adds a contact (by index) to a group, or removes them if they are in it.
  case toggleMember(group: Int, user: Int)
  /// The user writes a message in a conversation (by index).
  case write(conversation: Int, text: String)
  /// The user creates a group with the contacts of these indexes.
  case createGroup(members: [Int])
  /// The user leaves a group, which deletes it and its messages here.
  case leaveGroup(Int)
  /// The user deletes their latest message in a conversation that is still here.
  case deleteMessage(conversation: Int)
  /// The UI context saves the user's edits made since its last save.
  case save
  /// The tracker hands out its next request, if it has one.
  case handOut
  /// A request in flight (by index) gets its answer.
  case answer(Int, AnswerKind)
  /// The server applies a request in flight (by index), whose answer is still on the way.
  case deliver(Int)
  /// Another member renames a group.
  case remoteRename(group: Int, String)
  /// Another member adds a contact to a group, or removes them.
  case remoteMember(group: Int, user: Int)
  /// Another member removes the self user from a group, or adds them back.
  case remoteToggleSelf(group: Int)
  /// Another member writes in a conversation.
  case remoteMessage(conversation: Int)
  /// The user blocks a contact, or unblocks them if blocked.
  case toggleBlock(user: Int)
  /// The self user's other device blocks a contact, or unblocks them.
  case remoteToggleBlock(user: Int)
  /// Time passes, so that backoffs may end.
  case advance(Duration)
  /// The app retries every refused change.
  case retryFailed
  /// The app gives up every refused change.
  case discardFailed

  /// How the backend answers a request.
  public enum AnswerKind: Sendable, CaseIterable {
    /// The backend takes the request, and its own answer arrives: what it applied, or its
    /// refusal.
    case success
    /// A 503: the request may have been applied, for all the client can tell.
    case temporary
    /// A 429 with `Retry-After`: the backend surely did not apply the request.
    case tooMany
    /// A 400 the model makes up, for a request the backend never saw (one it already applied
    /// gets its own answer instead).
    case permanent
    /// The backend takes the request, but its answer is lost on the way.
    case lostResponse
  }

  /// The step in words, as a failing run lists it.
  public var description: String {
    switch self {
    case .renameSelf(let name): "rename self to \(name)"
    case .changeAccent(let accent): "change accent to \(accent)"
    case .renameGroup(let group, let name): "rename group \(group) to \(name)"
    case .toggleMember(let group, let user): "toggle user \(user) in group \(group)"
    case .write(let conversation, let text): "write \(text) in conversation \(conversation)"
    case .createGroup(let members): "create a group with users \(members)"
    case .leaveGroup(let group): "leave group \(group)"
    case .deleteMessage(let conversation):
      "delete the latest own message in conversation \(conversation)"
    case .save: "save the UI's edits"
    case .handOut: "hand out the next request"
    case .answer(let index, let kind): "answer in-flight request \(index): \(kind)"
    case .deliver(let index):
      "the server applies in-flight request \(index); its answer is still on the way"
    case .remoteRename(let group, let name): "another user renames group \(group) to \(name)"
    case .remoteMember(let group, let user):
      "another member adds or removes user \(user) in group \(group)"
    case .remoteToggleSelf(let group):
      "another member removes the self user from group \(group), or adds them back"
    case .remoteMessage(let conversation): "another user writes in conversation \(conversation)"
    case .toggleBlock(let user): "block user \(user), or unblock them if blocked"
    case .remoteToggleBlock(let user):
      "on another device, the self user blocks user \(user), or unblocks them if blocked"
    case .advance(let duration): "advance the clock by \(duration)"
    case .retryFailed: "retry every refused change"
    case .discardFailed: "give up every refused change"
    }
  }
}
