import Foundation

/// One step of a generated sequence run against the upstream tracker.
///
/// The user's edits are made in the UI context and saved by a ``save`` step, so one save may
/// carry several edits, of several keys and objects.
enum ModelStep: Sendable, CustomStringConvertible {
  case renameSelf(String)
  case changeAccent(Int)
  case renameGroup(Int, String)
  case toggleMember(group: Int, user: Int)
  case write(conversation: Int, text: String)
  case createGroup(members: [Int])
  /// The user leaves a group, which deletes it and its messages here.
  case leaveGroup(Int)
  /// The user deletes their latest message in a conversation that is still here.
  case deleteMessage(conversation: Int)
  /// The UI context saves the user's edits made since its last save.
  case save
  case handOut
  case answer(Int, AnswerKind)
  case deliver(Int)
  case remoteRename(group: Int, String)
  case remoteMember(group: Int, user: Int)
  case remoteToggleSelf(group: Int)
  case remoteMessage(conversation: Int)
  case toggleBlock(user: Int)
  case remoteToggleBlock(user: Int)
  case advance(Duration)
  case retryFailed
  case discardFailed

  /// How the backend answers a request.
  enum AnswerKind: Sendable, CaseIterable {
    case success
    /// A 503: the request may have been applied, for all the client can tell.
    case temporary
    /// A 429 with `Retry-After`: the backend surely did not apply the request.
    case tooMany
    case permanent
    case lostResponse
  }

  var description: String {
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

/// A broken rule of the sync promise, found after a step.
struct ModelViolation: Error, CustomStringConvertible {
  let step: Int
  let rule: String
  var description: String { "after step \(step + 1): \(rule)" }
}
