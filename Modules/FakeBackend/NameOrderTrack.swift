import ConversationParsing
import EventParsing
import Foundation
import ParsingCore
import UserParsing

/// The names the server set (users' names; conversations' names, by creation or rename), each
/// with the version of the notification that set it, and the rule a client's contexts keep: none
/// shows a name the server set before a name it showed already.
///
/// A name the server never set (a rename not sent yet) says nothing about the order and is
/// passed over, so the checks that use this write a new name at every rename: a name's version
/// is then the version of the one notification that set it.
package struct NameOrderTrack: Sendable {
  /// By the id of what a name names, each name the server set and its latest version.
  private var versions: [UUID: [String: Int]] = [:]
  /// For each stream read, by its user, the last notification read.
  private var lastRead: [UUID: UUID] = [:]
  /// For each context followed, by its label, the newest name it showed for each id.
  private var newest: [String: [UUID: (name: String, version: Int)]] = [:]

  /// Creates a track that has read no notification and seen no context yet.
  package init() {}

  /// Learns the names that the notifications of `user`'s `stream` not read yet set.
  ///
  /// A stream whose last notification read is no longer kept (the backend forgot it) is read
  /// whole again, which only tells the same versions again.
  package mutating func read(_ stream: [NotificationPayload], of user: UUID) {
    var start = stream.startIndex
    if let last = lastRead[user], let index = stream.lastIndex(where: { $0.id == last }) {
      start = index + 1
    }
    for notification in stream[start...] {
      guard let version = notification.version?.rawValue else { continue }
      for event in notification.events {
        switch event {
        case .userUpdate(let update):
          if let name = update.name { versions[update.id, default: [:]][name] = version }
        case .conversationRename(let rename):
          versions[rename.conversation, default: [:]][rename.data] = version
        case .conversationCreate(let creation):
          if let name = creation.data.name {
            versions[creation.conversation, default: [:]][name] = version
          }
        default:
          continue
        }
      }
    }
    if let last = stream.last?.id { lastRead[user] = last }
  }

  /// The version of the notification that set `name` for `id`, if the server set it.
  package func version(of name: String, for id: UUID) -> Int? {
    versions[id]?[name]
  }

  /// Forgets what `context` showed: a context whose state was lost (a kill after the store
  /// refused its save) starts again from what its store holds.
  package mutating func forget(_ context: String) {
    newest[context] = nil
  }

  /// Notes that `context` shows `name` for `id`; says how it is older than a name the context
  /// showed already, if it is, and then keeps the newer one as the newest shown.
  package mutating func show(_ name: String, of id: UUID, in context: String) -> String? {
    guard let version = versions[id]?[name] else { return nil }
    if let shown = newest[context]?[id], shown.version > version {
      return "the \(context) context shows \(name) (version \(version)) after it showed "
        + "\(shown.name) (version \(shown.version))"
    }
    newest[context, default: [:]][id] = (name, version)
    return nil
  }
}
