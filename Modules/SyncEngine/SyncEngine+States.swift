extension SyncEngine {
  /// Whether the engine was started, and whether it runs now.
  enum Lifecycle: Sendable, Equatable {
    /// Made and never started: nothing observes the sync context's saves yet.
    case created
    /// Started: saves and answers wake it, and it sends what is ready.
    case running
    /// Stopped after it ran: saves still wake it, and it sends nothing new until started again.
    case stopped
  }

  /// What the engine believes of the backend.
  enum Reachability: Sendable, Equatable {
    /// Reachable: requests go.
    case online
    /// Out of reach, as the transport or the app said: changes accumulate.
    case offline
    /// The backend did not know who asked: offline until the app signs its user in again and
    /// says the backend is reachable.
    case awaitingSignIn

    /// What the app saying whether the backend is reachable makes of this: online ends a wait
    /// for sign-in, offline keeps it.
    func said(online: Bool) -> Reachability {
      switch (self, online) {
      case (_, true): .online
      case (.awaitingSignIn, false): .awaitingSignIn
      case (_, false): .offline
      }
    }
  }

  /// Whether a job that plans and sends requests is running, and whether a wake-up came while
  /// it ran, so that it plans once more instead of another job planning beside it.
  enum Planning: Sendable, Equatable {
    /// No planning job runs.
    case idle
    /// A planning job runs, and nothing woke the engine since it started its round.
    case planning
    /// A planning job runs, and a wake-up came during its round: it plans once more.
    case planningAgain
  }

  /// The pull the engine owes since the last pull that read to the end.
  enum OwedPull: Sendable, Equatable {
    /// None: the last pull read to the end.
    case none
    /// A pull ended early (the network went, the backend did not know who asked, a page could
    /// not be read or saved): coming online again makes it up.
    case owed
  }

  /// Whether the engine is running.
  var isRunning: Bool { lifecycle == .running }

  /// Whether the engine believes the backend is reachable.
  public var isOnline: Bool { reachability == .online }

  /// Whether the engine is paused because the backend did not know who asked, until the app
  /// signs its user in again and calls ``setOnline(_:)``.
  public var isAwaitingSignIn: Bool { reachability == .awaitingSignIn }
}
