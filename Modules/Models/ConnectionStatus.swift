extension Connection {
  /// Where a connection request stands: the backend's seven statuses, plus ``invalid`` for a
  /// status this client does not know.
  public enum Status: String, Sendable, Hashable, CaseIterable, Codable {
    /// Both users are connected.
    case accepted
    /// The other user asked to connect and awaits an answer.
    case pending
    /// The self user blocked the other.
    case blocked
    /// The self user ignored the other's request.
    case ignored
    /// The self user asked to connect and awaits an answer.
    case sent
    /// The request was withdrawn.
    case cancelled
    /// The connection is held back until legal-hold consent is given.
    case missingLegalholdConsent = "missing-legalhold-consent"
    /// A status this client does not understand; nothing may move into or out of it.
    case invalid

    /// Creates the status the backend names `rawValue`, or ``invalid`` for an unknown name.
    package init(backendValue rawValue: String) {
      self = Status(rawValue: rawValue) ?? .invalid
    }

    /// The statuses this one may change to, besides itself.
    ///
    /// The table covers both sides of a request: the sender sees `sent` move to `accepted` when
    /// the other user accepts, and to `cancelled` when they withdraw; the receiver sees `pending`
    /// move to `accepted` or `ignored` by their own answer, or to `cancelled` when the sender
    /// withdraws. Blocking works from any live state, and a block can be lifted. A cancelled
    /// request is final: sending again means a new request from the backend.
    public var allowedTransitions: Set<Status> {
      switch self {
      case .sent: [.accepted, .cancelled, .blocked]
      case .pending: [.accepted, .ignored, .cancelled, .blocked]
      case .accepted: [.blocked, .missingLegalholdConsent]
      case .blocked: [.accepted]
      case .ignored: [.accepted, .blocked]
      case .missingLegalholdConsent: [.accepted, .blocked]
      case .cancelled, .invalid: []
      }
    }

    /// Whether a connection in this status may change to `next`; staying the same is allowed.
    public func allowsTransition(to next: Status) -> Bool {
      next == self || allowedTransitions.contains(next)
    }
  }
}
