import Foundation

/// One line typed into the chat client: a message for the open conversation, or a command that
/// starts with `/`.
public enum ChatCommand: Sendable, Equatable {
  /// Send the text to the open conversation.
  case say(String)
  /// List the conversations, newest first.
  case list
  /// Open the conversation with this number in the list, or this name.
  case open(String)
  /// Show the open conversation's messages, oldest first, each with its delivery state.
  case show
  /// Create a group with this name and the users with these handles.
  case group(name: String, handles: [String])
  /// Rename the open conversation.
  case rename(String)
  /// Add the user with this handle to the open conversation.
  case add(handle: String)
  /// Stop talking to the backend; changes wait.
  case offline
  /// Talk to the backend again; waiting changes go out and news are read.
  case online
  /// Show the sync queue: pending, in flight, blocked and failed changes, with reasons.
  case queue
  /// List the commands.
  case help
  /// Leave the client.
  case quit

  /// The commands and what they do, one per line.
  public static let usage = """
    text                  send text to the open conversation
    /list                 the conversations, newest first, numbered
    /open N|NAME          open a conversation by number or name
    /show                 the open conversation's messages, oldest first
    /group NAME HANDLE…   create a group with these users
    /rename NAME          rename the open conversation
    /add HANDLE           add a user to the open conversation
    /offline, /online     stop and resume talking to the backend
    /queue                what sync is doing: pending, in flight, blocked, failed
    /help, /quit
    """

  /// Reads one typed line.
  ///
  /// - Throws: ``ChatCommandError`` naming the command and what it needs.
  public init(parsing line: String) throws(ChatCommandError) {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard trimmed.hasPrefix("/") else {
      guard !trimmed.isEmpty else { throw .empty }
      self = .say(trimmed)
      return
    }
    let words = trimmed.dropFirst().split(separator: " ").map(String.init)
    let name = words.first ?? ""
    let rest = words.dropFirst().joined(separator: " ")
    switch (name, words.count) {
    case ("list", 1): self = .list
    case ("show", 1): self = .show
    case ("offline", 1): self = .offline
    case ("online", 1): self = .online
    case ("queue", 1): self = .queue
    case ("help", 1): self = .help
    case ("quit", 1): self = .quit
    case ("open", 2...): self = .open(rest)
    case ("rename", 2...): self = .rename(rest)
    case ("add", 2): self = .add(handle: words[1])
    case ("group", 3...): self = .group(name: words[1], handles: Array(words.dropFirst(2)))
    case ("open", _), ("rename", _): throw .needs(name, "a name")
    case ("add", _): throw .needs(name, "one handle")
    case ("group", _): throw .needs(name, "a name and at least one handle")
    case ("list", _), ("show", _), ("offline", _), ("online", _), ("queue", _), ("help", _),
      ("quit", _):
      throw .needs(name, "nothing after it")
    default: throw .unknown(name)
    }
  }
}

/// Why a typed line is no command.
public enum ChatCommandError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line was blank.
  case empty
  /// No command has this name.
  case unknown(String)
  /// The command was given the wrong arguments.
  case needs(String, String)

  /// Says what was wrong and what to type.
  public var description: String {
    switch self {
    case .empty: "type a message, or /help"
    case .unknown(let name): "/\(name) is no command; /help lists them"
    case .needs(let name, let what): "/\(name) takes \(what)"
    }
  }
}
