import CourierAPI
import Foundation
import Models
import ParsingCore

/// Pushes groups: `POST /conversations` (with the client's id) for a new one,
/// `PUT /conversations/{id}` for a new name, `DELETE`/`POST /conversations/{id}/members` for
/// participants removed or added since the last synchronised value (removals first), and leaving
/// a deleted group with `DELETE /conversations/{id}/members` for the self user.
///
/// A new name and new participants go in separate requests, which may be in flight at once:
/// they carry different keys. A group waits for the connections of its participants to exist on
/// the backend, and for their changes (an acceptance) to reach it, first.
public struct ConversationStrategy: UpstreamStrategy {
  /// Creates the strategy.
  public init() {}

  /// Name and participants.
  public var pushableKeys: Set<Conversation.Key> { [.name, .participantIDs] }

  /// Only groups are made, changed and left by the client; the backend makes the other kinds.
  public func isSynchronised(_ object: Conversation, in context: ModelContext) -> Bool {
    object.kind == .group
  }

  /// The connections of the participants (other than self) must exist first, and any change of
  /// them (an acceptance) must have reached the backend: it refuses members who are not
  /// connected.
  public func dependencies(of change: UpstreamChange<Conversation>, in context: ModelContext)
    -> [SyncDependency]
  {
    guard let conversation = change.object,
      change.kind == .insert || change.keys.contains(.participantIDs)
    else { return [] }
    let me = context.selfUser?.id
    return conversation.participantIDs.filter { $0 != me }.sorted().flatMap { participant in
      let connection = ObjectReference(.connection, participant)
      return [SyncDependency.exists(connection), .after(connection)]
    }
  }

  /// The call for a new group, a new name, a change of participants (removals first), or
  /// leaving.
  public func action(for change: UpstreamChange<Conversation>, in context: ModelContext)
    -> UpstreamAction<Conversation>
  {
    let me = context.selfUser?.id
    switch change.kind {
    case .delete:
      guard let me else { return .localOnly }
      return .send(
        .removeMembers(conversation: change.id, MemberList(users: [me])), carrying: [], sent: nil)
    case .insert:
      guard let conversation = change.object else { return .localOnly }
      let others = conversation.participantIDs.filter { $0 != me }.sorted()
      return .send(
        .createConversation(
          NewConversation(id: conversation.id, name: conversation.name, users: others)),
        carrying: change.keys, sent: conversation)
    case .update:
      guard let conversation = change.object else { return .localOnly }
      if change.keys.contains(.name), let name = conversation.name {
        return .send(
          .renameConversation(id: conversation.id, ConversationRename(name: name)),
          carrying: [.name], sent: conversation)
      }
      let bases =
        [change.lastKnown ?? conversation] + change.unconfirmed
        + (change.editBase.map { [$0] } ?? [])
      return membersAction(conversation, from: bases.map(\.participantIDs))
    }
  }

  /// Removes the participants that some base has and the group should not, then adds those it
  /// should have and some base lacks.
  ///
  /// The bases are what the backend may hold (the acknowledged participants, or those that a
  /// request whose answer was lost sent) and the edit base, what the user saw when they saved:
  /// a member they removed again while the first removal was out is removed again, though the
  /// backend acknowledged that removal since, as another device may have added them back,
  /// unheard yet. Removing first makes the end state exact whatever the backend held: after the
  /// removals every possible state lies within the wanted participants. The removal records the
  /// participants all of them shared as sent and the union as also possible, so a later change
  /// still removes a participant that may be there; the additions then complete the group.
  /// Adding and removing are idempotent, so covering every possibility is safe.
  private func membersAction(_ conversation: Conversation, from bases: [Set<UUID>])
    -> UpstreamAction<Conversation>
  {
    let wanted = conversation.participantIDs
    let inEvery = bases.dropFirst().reduce(bases.first ?? []) { $0.intersection($1) }
    let inAny = bases.reduce(Set<UUID>()) { $0.union($1) }
    var sent = conversation
    let removed = inAny.subtracting(wanted).sorted()
    if !removed.isEmpty {
      sent.participantIDs = inEvery.intersection(wanted)
      var upperBound = conversation
      upperBound.participantIDs = inAny.intersection(wanted)
      return .send(
        .removeMembers(conversation: conversation.id, MemberList(users: removed)),
        carrying: [.participantIDs], sent: sent,
        alsoPossible: upperBound.participantIDs == sent.participantIDs ? [] : [upperBound])
    }
    let added = wanted.subtracting(inEvery).sorted()
    guard !added.isEmpty else { return .localOnly }
    return .send(
      .addMembers(conversation: conversation.id, MemberList(users: added)),
      carrying: [.participantIDs], sent: conversation)
  }

  /// A created group's answer is the group as the backend holds it, which for a resent creation
  /// is its first version; members added or removed change the participants the backend holds
  /// now.
  public func acknowledgement(
    of sent: SentChange<Conversation>, response: EndpointResponse, in context: ModelContext
  ) -> Acknowledgement<Conversation>? {
    switch (sent.kind, sent.endpoint, response) {
    case (.insert, _, .conversation(let payload)):
      return Acknowledgement(PayloadMapping.conversation(payload))
    case (.update, .addMembers(_, let list), _):
      return membersChanged(sent, adding: Set(list.users), in: context)
    case (.update, .removeMembers(_, let list), _):
      return membersChanged(sent, removing: Set(list.users), in: context)
    default:
      return nil
    }
  }

  /// The participants the backend holds after members were added or removed: the change
  /// applied to the members it holds now.
  ///
  /// Another user may have added or removed members since the request went: those changes are
  /// in the last synchronised value and stay. Where another user changed one of the very
  /// members this request changed, even if only to change them back, the server's versions say
  /// which came last: news heard after the request stand for those members, and the answer says
  /// what the backend holds, so member lists an earlier lost answer left possible count no more.
  private func membersChanged(
    _ sent: SentChange<Conversation>, adding added: Set<UUID> = [],
    removing removed: Set<UUID> = [], in context: ModelContext
  ) -> Acknowledgement<Conversation>? {
    // The group as last synchronised: its original while changes of it are pending here, else
    // the group here, which news may have replaced since the request went (dropped and brought
    // back); what it was when the request went only once it is gone here.
    guard let now = context.lastSynchronised(Conversation.self, id: sent.id) ?? sent.lastKnown
    else { return nil }
    let before = sent.lastKnown?.participantIDs ?? now.participantIDs
    let touched = Self.moved(
      along: [before] + sent.heard.map(\.participantIDs) + [now.participantIDs])
    // `touched` moved after the request: their news stand.
    let contested = added.union(removed).intersection(touched)
    var value = now
    value.participantIDs = now.participantIDs.union(added.subtracting(contested))
      .subtracting(removed.subtracting(contested))
    return Acknowledgement(value)
  }

  /// The members that joined or left somewhere along `path`, a series of member lists.
  private static func moved(along path: [Set<UUID>]) -> Set<UUID> {
    zip(path, path.dropFirst()).reduce(into: Set<UUID>()) {
      $0.formUnion($1.0.symmetricDifference($1.1))
    }
  }

  /// Takes the group as the backend answered it: keys this device did not change since get the
  /// backend's values, such as a rename another member made before a lost answer came again.
  ///
  /// A new group, a new name, the members a request listed and a group the backend let the self
  /// user leave await their news at the answer's version (`SyncMetadata.awaitedNews`), so that
  /// older news or lists of them, read after the answer, leave them as the answer set them.
  public func didSucceed(
    _ sent: SentChange<Conversation>, response: EndpointResponse, in context: ModelContext
  ) {
    let version = sent.version?.rawValue
    switch (sent.endpoint, response) {
    case (_, .conversation(let payload)):
      context.applyRemote(PayloadMapping.conversation(payload))
      if sent.kind == .insert {
        context.syncMetadata.awaitNews(of: .createdGroup(sent.id), answeredAt: version)
      }
    case (.renameConversation(_, let rename), _) where sent.kind == .update:
      context.syncMetadata.awaitNews(
        of: .groupName(sent.id), answeredAt: version, setting: .name(rename.name))
    case (.addMembers(_, let list), _):
      awaitNews(of: list, in: sent, added: true, answeredAt: version, in: context)
    case (.removeMembers(_, let list), _) where sent.kind == .update:
      awaitNews(of: list, in: sent, added: false, answeredAt: version, in: context)
    case (.removeMembers, .membersChanged(let changed)) where sent.kind == .delete:
      // The backend took the self user out now, so news of that come. A group here again was
      // brought back by news read since (another member added the self user back): they came
      // after the leaving, so nothing is left to wait for.
      if let me = context.selfUser?.id, changed.userIDs.contains(me),
        context.object(Conversation.self, id: sent.id) == nil
      {
        context.syncMetadata.awaitNews(of: .leftGroup(sent.id), answeredAt: version)
      }
    default:
      break
    }
  }

  /// Records that the members `list` names, `added` or taken out, await their news at the
  /// answer's `version`.
  private func awaitNews(
    of list: MemberList, in sent: SentChange<Conversation>, added: Bool,
    answeredAt version: Int?, in context: ModelContext
  ) {
    for user in list.users {
      context.syncMetadata.awaitNews(
        of: .member(user, conversation: sent.id), answeredAt: version, setting: .member(added))
    }
  }

  /// A group that is already gone, or already left, needs no leaving.
  public func didFailPermanently(
    _ sent: SentChange<Conversation>, failure: BackendFailure, in context: ModelContext
  ) -> PermanentFailureDecision {
    if sent.kind == .delete && failure.status == 404 { return .alreadyApplied }
    return .markFailed("\(failure)")
  }
}
