import Seams

/// Draws a schedule from a seed, with the weights of a busy user on a bad network.
public struct ScheduleGenerator: Sendable {
  /// What the schedule may contain.
  public let options: SimulationOptions

  /// Creates a generator.
  public init(options: SimulationOptions) {
    self.options = options
  }

  /// The schedule of `seed`: always the same steps for the same seed and options.
  public func schedule(seed: UInt64) -> [SimulationStep] {
    var random = SeededRandomNumberGenerator(seed: seed)
    return (0..<options.steps).map { index in step(index, &random) }
  }

  private func step(_ index: Int, _ random: inout SeededRandomNumberGenerator) -> SimulationStep {
    func pick(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    // For a step drawn in place of half of another's: one draw of twice the range, whose upper
    // bits pick what `pick(0...(count - 1))` would from the same word (a range of a power of
    // two takes one word either way), and whose lowest bit says which of the two steps it is.
    func pickOrReplace(_ count: Int) -> (position: Int, replaced: Bool) {
      let drawn = pick(0...(2 * count - 1))
      return (drawn / 2, !drawn.isMultiple(of: 2))
    }
    let roll = pick(0...99)
    switch roll {
    case 0..<8: return .renameSelf("n\(index)")
    case 8..<11: return .changeAccent(pick(0...7))
    case 11..<14 where options.connectionChanges:
      let (contact, replaced) = pickOrReplace(4)
      return replaced
        ? .changeConnection(contact: contact) : .requestConnection(contact: contact)
    case 11..<14: return .requestConnection(contact: pick(0...3))
    case 14..<17: return .acceptIncoming(contact: pick(0...3))
    case 17..<20: return .createGroup(name: "g\(index)", contacts: [pick(0...3), pick(0...3)])
    case 20..<25: return .renameGroup(group: pick(0...5), name: "r\(index)")
    case 25..<31: return .toggleMember(group: pick(0...5), contact: pick(0...3))
    case 31..<32: return .leaveGroup(group: pick(0...5))
    case 32..<46: return .writeMessage(conversation: pick(0...7), text: "m\(index)")
    case 46..<48: return .deleteMessage(conversation: pick(0...7))
    case 48..<50 where options.connectionChanges:
      let (contact, replaced) = pickOrReplace(4)
      return replaced
        ? .remoteCancelRequest(contact: contact) : .remoteRequest(contact: contact)
    case 48..<50: return .remoteRequest(contact: pick(0...3))
    case 50..<52: return .remoteAccept(contact: pick(0...3))
    case 52..<55 where options.remoteDeletions:
      let (conversation, replaced) = pickOrReplace(8)
      return replaced
        ? .remoteDeleteMessage(conversation: conversation)
        : .remotePost(conversation: conversation, text: "x\(index)")
    case 52..<55: return .remotePost(conversation: pick(0...7), text: "x\(index)")
    case 55..<57: return .remoteRename(group: pick(0...5), name: "y\(index)")
    case 57..<58 where options.memberAdditions:
      let group = pick(0...5)
      let (contact, replaced) = pickOrReplace(4)
      return replaced
        ? .remoteAddMember(group: group, contact: contact)
        : .remoteRemoveMember(group: group, contact: contact)
    case 57..<58: return .remoteRemoveMember(group: pick(0...5), contact: pick(0...3))
    // Drawn in place of a pull, which draws nothing more, so the rest stays as it was.
    case 62..<63 where options.signOuts && options.faults: return .fault(.signedOut)
    case 58..<63: return .pull
    case 63..<78 where options.faults:
      let kinds = options.faultKinds
      return .fault(kinds[pick(0...(kinds.count - 1))])
    case 78..<82 where options.faults: return .releaseParked(pick(0...3))
    case 82..<84 where options.faults: return .goOffline(hanging: pick(0...1) == 1)
    case 84..<88 where options.faults: return .goOnline
    // Without refusals these rolls stay time passing, so older seeds draw what they drew.
    case 94..<95 where options.refusals && options.faults: return .refuseParked(pick(0...3))
    case 95..<96 where options.refusals && options.faults: return .retryRefused
    case 96..<97 where options.refusals && options.faults: return .giveUpRefused
    // One draw, as the time passing it replaces, so that the rest of a schedule stays as it was.
    case 93..<94 where options.removals: return .remoteRemoveSelf(group: pick(0...5))
    case 92..<93 where options.rejoins: return .remoteAddSelf(group: pick(0...5))
    case 90..<91 where options.heldAnswers && options.faults:
      // A draw the step does not need, as the time passing it replaces made one.
      _ = pick(1...4_000)
      return .fault(.heldAnswer)
    case 91..<92 where options.contactRenames:
      return .remoteRenameContact(contact: pick(0...3), name: "u\(index)")
    case 89..<90 where options.otherDevice:
      // The one draw the time passing it replaces made: a rename does not need it; in place of
      // half the renames, a deletion takes its conversation from it.
      let drawn = pick(1...4_000)
      guard options.deletionsElsewhere, drawn.isMultiple(of: 2) else {
        return .remoteRenameSelf("o\(index)")
      }
      return .remoteDeleteOwnMessage(conversation: drawn / 2 % 8)
    case 88..<89 where options.expiries:
      // One draw, as the time passing it replaces made one. The backend keeps at least its
      // newest notification: one that keeps none cannot tell a client reading from the start
      // what it forgot (see "Catching up" in the README). In place of half the expiries, the
      // store refuses the next one or two saves; the expiries left keep what they drew.
      let drawn = pick(1...4_000)
      if options.storeRefusals, options.faults, (drawn / 3).isMultiple(of: 2) {
        return .refuseSaves(1 + drawn / 6 % 2)
      }
      return .expireNotifications(keepingLast: 1 + drawn % 3)
    case 88..<97: return .advance(milliseconds: pick(1...4_000))
    case 97..<100 where options.restarts: return .restart
    default: return .advance(milliseconds: pick(1...500))
    }
  }
}
