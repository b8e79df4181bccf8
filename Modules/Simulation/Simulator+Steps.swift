import ConnectionParsing
import ConversationParsing
import EventParsing
import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine
import SyncStrategies
import Transport
import UserParsing

extension Simulator {
  /// The UI context of the living app.
  var ui: ModelContext { app.stack.ui.context }

  /// The groups the client knows, in a stable order.
  var groups: [Conversation] {
    ui.objects(Conversation.self).filter { $0.kind == .group }
  }

  /// The conversations the client can write in, in a stable order.
  var writableConversations: [Conversation] {
    ui.objects(Conversation.self).filter { $0.kind == .group || $0.kind == .oneToOne }
  }

  /// The groups the backend holds with members but without the self user, who left them or was
  /// removed, in the order of their ids.
  var groupsWithoutMe: [UUID] {
    fake.snapshot.conversations
      .filter { !$0.value.members.isEmpty && !$0.value.members.contains(me) }
      .keys.sorted()
      .filter { fake.conversation($0)?.type == .group }
  }

  /// The contacts the self user is connected with.
  var connectedContacts: [UUID] {
    contacts.filter { ui.object(Connection.self, id: $0)?.status == .accepted }
  }

  func apply(_ step: SimulationStep, at index: Int) async {
    switch step {
    case .renameSelf(let name):
      if save({ try $0.update(User.self, id: self.me) { $0.name = name } }) {
        lastEdits.saved(name, for: .selfName)
      }
    case .changeAccent(let accent):
      if save({ try $0.update(User.self, id: self.me) { $0.accentID = accent } }) {
        lastEdits.saved("\(accent)", for: .accent)
      }
    case .requestConnection(let contact): requestConnection(contacts[contact % contacts.count])
    case .acceptIncoming(let contact):
      let id = contacts[contact % contacts.count]
      guard ui.object(Connection.self, id: id)?.status == .pending else { return }
      if save({ try $0.update(Connection.self, id: id) { $0.status = .accepted } }) {
        lastEdits.saved("\(Connection.Status.accepted)", for: .connection(id))
      }
    case .changeConnection(let contact): changeConnection(contacts[contact % contacts.count])
    case .createGroup(let name, let picked): createGroup(name, picked)
    case .renameGroup(let group, let name):
      guard let id = pick(groups, group)?.id else { return }
      if save({ try $0.update(Conversation.self, id: id) { $0.name = name } }) {
        lastEdits.saved(name, for: .groupName(id))
      }
    case .toggleMember(let group, let contact): toggleMember(group, contact)
    case .leaveGroup(let group): leaveGroup(group)
    case .writeMessage(let conversation, let text): write(text, in: conversation, at: index)
    case .deleteMessage(let conversation): deleteLatestMessage(in: conversation)
    case .remoteRequest, .remoteAccept, .remoteCancelRequest, .remotePost,
      .remoteDeleteMessage, .remoteDeleteOwnMessage, .remoteRename, .remoteRemoveMember,
      .remoteAddMember, .remoteRenameContact, .remoteRenameSelf, .remoteRemoveSelf,
      .remoteAddSelf:
      applyRemote(step)
    case .pull:
      let engine = app.engine
      app.tracker.run("pull notifications") { await engine.pullNotifications() }
    case .expireNotifications(let kept):
      figures.notificationExpiries += 1
      let forgotten = fake.expireNotifications(keepingLast: kept)
      for event in forgotten.flatMap(\.events) {
        switch event {
        case .messageAdd(let added): forgottenMessages.insert(added.data.nonce)
        case .messageDelete(let deleted): forgottenDeletions.insert(deleted.data)
        default: break
        }
      }
    case .fault(let fault):
      figures.faults[fault, default: 0] += 1
      fake.addFault(.once(fault.matcher, fault.fault))
    case .releaseParked(let position):
      let parked = fake.parkedRequests
      guard !parked.isEmpty else { return }
      fake.releaseParkedRequest(parked[position % parked.count])
    case .refuseParked(let position):
      // Only the requests a refusal may hit: this backend never answers a deletion with a 400.
      let refusable = fake.parkedRequests.filter { index in
        fake.parkedRequest(index).map(SimulatedFault.refusal.matcher.matches) ?? false
      }
      guard !refusable.isEmpty else { return }
      if fake.refuseParkedRequest(refusable[position % refusable.count]) {
        figures.parkedRefused += 1
      }
    case .goOffline(let hanging):
      figures.offlineSpells += 1
      fake.network = hanging ? .unresponsive : .offline
    case .goOnline:
      fake.network = .online
      await app.engine.setOnline(true)
    case .advance(let milliseconds): clock.advance(by: .milliseconds(milliseconds))
    case .refuseSaves(let count):
      figures.savesRefused += count
      app.refuseSaves(count)
    case .restart:
      do {
        try await restart()
      } catch {
        log.add("the app could not start again: \(error)")
      }
    case .retryRefused:
      for refused in await app.engine.queue().failed.map(\.object) {
        if refused.entity == .message, let message = ui.object(Message.self, id: refused.id) {
          retriedTexts.insert(message.text)
        }
        if await app.engine.retryFailedChange(of: refused) { figures.refusalsRetried += 1 }
      }
    case .giveUpRefused:
      for refused in await app.engine.queue().failed.map(\.object) {
        let before = await pendingMessageChange(refused)
        if await app.engine.discardFailedChange(of: refused) {
          figures.refusalsGivenUp += 1
          lastEdits.forget(keysOf: refused)
          if before == .delete { givenUpDeletions.insert(refused.id) }
        }
        // Giving up the deletion of a message given up before brings it back as new: it is
        // sent again, after those written since.
        if before != .insert, await pendingMessageChange(refused) == .insert,
          let text = textsByID[refused.id]
        {
          retriedTexts.insert(text)
        }
      }
    }
  }

  /// How the sync context holds `object`, if it is a message whose insertion or deletion the
  /// backend has not acknowledged: new here, or deleted here.
  private func pendingMessageChange(_ object: ObjectReference) async -> UpstreamChangeKind? {
    guard object.entity == .message else { return nil }
    return await app.engine.stack.sync.perform { context in
      let changes = context.localChanges(of: Message.self)
      if changes.inserted.contains(object.id) { return .insert }
      return changes.deleted.contains(object.id) ? .delete : nil
    }
  }

  private func pick<Element>(_ elements: [Element], _ position: Int) -> Element? {
    elements.isEmpty ? nil : elements[position % elements.count]
  }

  /// Applies `edit` to the UI context and saves; a save the rules refuse is rolled back, as
  /// an app shows the error and carries on.
  @discardableResult
  func save(_ edit: (ModelContext) throws -> Void) -> Bool {
    do {
      try edit(ui)
      try ui.save()
      return true
    } catch {
      ui.rollback()
      log.add("the UI's save was refused: \(error)")
      return false
    }
  }

  private func requestConnection(_ contact: UUID) {
    guard ui.object(Connection.self, id: contact) == nil else { return }
    save { context in
      // As an app does with the contact a search found: under the name the backend has.
      if context.object(User.self, id: contact) == nil {
        try context.insert(User(id: contact, name: self.fake.user(contact)?.name ?? "Contact"))
      }
      try context.insert(
        Connection(
          from: self.me, to: contact, status: .sent,
          lastUpdate: Date(timeIntervalSince1970: 1_800_000_000), message: "Hi"))
    }
  }

  /// Moves the self user's connection with `contact` on, as an app's buttons do; a connection
  /// this app does not have, or one that has nowhere to go (cancelled), stays as it is.
  private func changeConnection(_ contact: UUID) {
    let next: Connection.Status
    switch ui.object(Connection.self, id: contact)?.status {
    case .accepted: next = .blocked
    case .blocked, .ignored: next = .accepted
    case .pending: next = .ignored
    case .sent: next = .cancelled
    default: return
    }
    if save({ try $0.update(Connection.self, id: contact) { $0.status = next } }) {
      figures.connectionChanges += 1
      lastEdits.saved("\(next)", for: .connection(contact))
    }
  }

  private func createGroup(_ name: String, _ picked: [Int]) {
    let connected = connectedContacts
    let members = picked.compactMap { pick(connected, $0) }
    let group = Conversation(
      id: ui.makeID(), kind: .group, name: name, creatorID: me,
      participantIDs: Set(members + [me]), lastEventTime: Date(timeIntervalSince1970: 1_800_000_000)
    )
    if save({ try $0.insert(group) }) { createdGroups.insert(group.id) }
  }

  /// Adds or removes a connected contact; a member toggled back to where the list the user's
  /// change is measured from has them is the user undoing their own change, which leaves the
  /// member to whatever others did meanwhile, so it is no edit to follow.
  private func toggleMember(_ group: Int, _ contact: Int) {
    guard let id = pick(groups, group)?.id, let member = pick(connectedContacts, contact) else {
      return
    }
    let base = memberBases[id]
    var added = false
    let saved = save { context in
      try context.update(Conversation.self, id: id) { conversation in
        if conversation.participantIDs.remove(member) == nil {
          conversation.participantIDs.insert(member)
          added = true
        }
      }
    }
    guard saved else { return }
    if base?.contains(member) == added {
      lastEdits.savedUnfollowed(.member(member, group: id))
    } else {
      lastEdits.saved(added ? "in" : "out", for: .member(member, group: id))
    }
  }

  private func leaveGroup(_ group: Int) {
    guard let conversation = pick(groups, group) else { return }
    let messages = ui.messages(in: conversation)
    let left = save { context in
      for message in messages { try context.delete(Message.self, id: message.id) }
      try context.delete(Conversation.self, id: conversation.id)
    }
    // An unsent message given up here may have a request out, which lands if another member
    // adds the self user back.
    let unsent = messages.filter { $0.deliveryState != .sent }
    if left {
      droppedTexts.formUnion(unsent.compactMap { textsByID[$0.id] })
      lastEdits.forget(keysOf: ObjectReference(.conversation, conversation.id))
      lastEdits.savedUnfollowed(.member(me, group: conversation.id))
    }
  }

  /// Writes a message stamped with the virtual time plus a millisecond per step, so that, as
  /// with a real clock, a message written later has a later local time: the time messages are
  /// ordered by.
  private func write(_ text: String, in position: Int, at index: Int) {
    guard let conversation = pick(writableConversations, position) else { return }
    let localTime = 1_800_000_000 + clock.now() / .seconds(1) + Double(index) / 1_000
    let message = Message(
      nonce: ui.makeID(), conversationID: conversation.id, senderID: me, text: text,
      localTime: Date(timeIntervalSince1970: localTime))
    if save({ try $0.insert(message) }) {
      written[conversation.id, default: []].append(text)
      textsByID[message.id] = text
    }
  }

  private func deleteLatestMessage(in position: Int) {
    guard let conversation = pick(writableConversations, position),
      let latest = ui.messages(in: conversation).last(where: {
        $0.senderID == me && $0.deliveryState == .sent
      })
    else { return }
    save { try $0.delete(Message.self, id: latest.id) }
  }

  private func applyRemote(_ step: SimulationStep) {
    switch step {
    case .remoteRequest(let contact):
      let id = contacts[contact % contacts.count]
      if fake.requestConnectionRemotely(from: id) != nil {
        remotelyTouched.insert(ObjectReference(.connection, id))
        changedElsewhere(.connection(id))
      }
    case .remoteAccept(let contact):
      let id = contacts[contact % contacts.count]
      if fake.acceptRemotely(by: id) {
        remotelyTouched.insert(ObjectReference(.connection, id))
        changedElsewhere(.connection(id))
      }
    case .remoteCancelRequest(let contact):
      let id = contacts[contact % contacts.count]
      if fake.cancelRequestRemotely(by: id) {
        remotelyTouched.insert(ObjectReference(.connection, id))
        changedElsewhere(.connection(id))
        figures.withdrawnRequests += 1
      }
    case .remotePost(let position, let text):
      guard let conversation = pick(writableConversations, position),
        let author = fake.members(of: conversation.id).first(where: { $0 != me })
      else { return }
      fake.postMessageRemotely(in: conversation.id, from: author, text: text)
    case .remoteDeleteMessage(let position):
      guard let conversation = pick(writableConversations, position)?.id,
        let latest = fake.messages(in: conversation).last(where: { $0.from != me }),
        fake.deleteMessageRemotely(latest.nonce, in: conversation)
      else { return }
      figures.messagesDeletedByOthers += 1
      // The news of it reach the client only if the self user is in the conversation now.
      if fake.members(of: conversation).contains(me) { deletedBySenders.insert(latest.nonce) }
    case .remoteDeleteOwnMessage(let position):
      // Only a member may delete a message; the news then tell this device.
      guard let conversation = pick(writableConversations, position)?.id,
        fake.members(of: conversation).contains(me),
        let latest = fake.messages(in: conversation).last(where: { $0.from == me }),
        fake.deleteMessageRemotely(latest.nonce, in: conversation)
      else { return }
      figures.deletionsElsewhere += 1
      deletedBySenders.insert(latest.nonce)
    case .remoteRename(let group, let name):
      guard let id = pick(groups, group)?.id,
        let author = fake.members(of: id).first(where: { $0 != me })
      else { return }
      if fake.renameRemotely(id, to: name, by: author) {
        remotelyTouched.insert(ObjectReference(.conversation, id))
        changedElsewhere(.groupName(id))
      }
    case .remoteRemoveMember(let group, let contact):
      guard let id = pick(groups, group)?.id else { return }
      let members = fake.members(of: id).filter { $0 != me }
      guard let author = members.first, let removed = pick(members, contact), removed != author
      else { return }
      if fake.removeMembersRemotely([removed], from: id, by: author) {
        remotelyTouched.insert(ObjectReference(.conversation, id))
        changedElsewhere(.member(removed, group: id))
      }
    case .remoteAddMember(let group, let contact):
      guard let id = pick(groups, group)?.id else { return }
      let members = fake.members(of: id)
      guard let author = members.first(where: { $0 != me }),
        let added = pick(contacts.filter { !members.contains($0) }, contact)
      else { return }
      if fake.addMembersRemotely([added], to: id, by: author) {
        remotelyTouched.insert(ObjectReference(.conversation, id))
        changedElsewhere(.member(added, group: id))
        figures.membersAddedByOthers += 1
      }
    case .remoteRenameContact(let contact, let name):
      // Any contact: the backend tells a rename only to connections, so one made while a
      // request waits reaches the client only if it fetches the profile once it is accepted.
      guard let id = pick(contacts, contact) else { return }
      if fake.renameUserRemotely(id, to: name) { figures.contactRenames += 1 }
    case .remoteRenameSelf(let name):
      // The news tell the rename; a rename of this device's that crossed it may land before or
      // after it, and whichever the backend applied last is the one both must end on.
      if fake.renameUserRemotely(me, to: name) {
        remotelyTouched.insert(ObjectReference(.user, me))
        changedElsewhere(.selfName)
        figures.renamesElsewhere += 1
      }
    case .remoteRemoveSelf(let group):
      guard let id = pick(groups, group)?.id,
        let author = fake.members(of: id).first(where: { $0 != me })
      else { return }
      if fake.removeMembersRemotely([me], from: id, by: author) {
        awaitingNews.insert(id)
        lastEdits.forget(keysOf: ObjectReference(.conversation, id))
        changedElsewhere(.member(me, group: id))
        figures.removedFromGroups += 1
      }
    case .remoteAddSelf(let group):
      guard let id = pick(groupsWithoutMe, group), let author = fake.members(of: id).first
      else { return }
      if fake.addMembersRemotely([me], to: id, by: author) {
        awaitingNews.insert(id)
        lastEdits.forget(keysOf: ObjectReference(.conversation, id))
        changedElsewhere(.member(me, group: id))
        postedBeforeRejoin[id, default: []].formUnion(fake.messages(in: id).map(\.nonce))
        figures.rejoinedGroups += 1
      }
    default: return
    }
  }
}
