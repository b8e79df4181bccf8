import EventParsing
import Foundation

extension DownstreamSync {
  /// For each member event of `events` (by position), the members a later member event of the
  /// same conversation names again: the backend's last word on them comes later in the page.
  ///
  /// Only a member's last event in a page says where the backend left them, so an earlier one
  /// moves them only in the last synchronised list. Moved in the list here too, an older event
  /// could take out a member the user's pending change is not about, and the later one could not
  /// bring them back, as the answer to the user's earlier change of that member had moved the
  /// list the change is measured from (news of the user's removal of Ann, read after the answer
  /// to her addition while another member change was out, would take her out for good). The self user is never left out: their own joining or leaving brings a group
  /// here or drops it.
  static func laterMemberNews(in events: [EventPayload], me: UUID?) -> [Int: Set<UUID>] {
    struct Membership: Hashable {
      let conversation: UUID
      let user: UUID
    }
    var namedLater: Set<Membership> = []
    var namedAgain: [Int: Set<UUID>] = [:]
    for (position, event) in events.enumerated().reversed() {
      guard let change = event.memberChange else { continue }
      let again = change.data.filter { user in
        user != me && namedLater.contains(Membership(conversation: change.conversation, user: user))
      }
      if !again.isEmpty { namedAgain[position] = Set(again) }
      for user in change.data {
        namedLater.insert(Membership(conversation: change.conversation, user: user))
      }
    }
    return namedAgain
  }
}

extension EventPayload {
  /// The members and conversation of a member joining or leaving; `nil` for any other event.
  fileprivate var memberChange: ConversationEvent<[UUID]>? {
    switch self {
    case .memberJoin(let change), .memberLeave(let change): change
    default: nil
    }
  }
}
