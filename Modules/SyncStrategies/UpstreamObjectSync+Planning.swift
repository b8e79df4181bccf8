import Foundation
import Models

extension UpstreamObjectSync {
  /// The queue as it stands: every piece of work sorted into ready, blocked, waiting on a
  /// failure, or retrying, with what is in flight and the members of dependency cycles.
  func makeQueue(_ state: State, in context: ModelContext, now: Duration) -> SyncQueueSnapshot {
    var lineup = lineUp(state, in: context, now: now)
    var queue = SyncQueueSnapshot()
    queue.inFlight = tracks.flatMap(\.inFlightItems).sorted()
    queue.failed = lineup.survey.failed.sorted { $0.object < $1.object }
    queue.retrying = lineup.retrying
    var waits: [ObjectReference: [ObjectReference]] = [:]
    while let evaluated = evaluateNextTrack(&lineup, in: context) {
      for (work, wait) in evaluated {
        switch wait {
        case .none:
          queue.pending.append(work.item)
        case .blocked(let objects):
          waits[work.object] = objects
          queue.blocked.append(.init(item: work.item, waitingFor: objects, isCycle: false))
        case .failure(let object, let failure):
          queue.waitingOnFailure.append(
            .init(item: work.item, failedObject: object, reason: failure.reason))
        }
      }
    }
    Self.moveWaitsOnFailures(in: &queue)
    let cycles = Self.cycleMembers(waits)
    queue.blocked = queue.blocked.map {
      .init(item: $0.item, waitingFor: $0.waitingFor, isCycle: cycles.contains($0.item.object))
    }
    return queue
  }

  /// Moves each blocked change that waits, directly or through others, for a change waiting on
  /// a failure to the changes waiting on that failure: only the app, by retrying or discarding
  /// the failed change, can free it.
  static func moveWaitsOnFailures(in queue: inout SyncQueueSnapshot) {
    var onFailure: [ObjectReference: SyncQueueSnapshot.WaitingOnFailure] = [:]
    for waiting in queue.waitingOnFailure { onFailure[waiting.item.object] = waiting }
    var blocked = queue.blocked
    var moved = true
    while moved {
      moved = false
      blocked.removeAll { entry in
        guard let cause = entry.waitingFor.lazy.compactMap({ onFailure[$0] }).first else {
          return false
        }
        let waiting = SyncQueueSnapshot.WaitingOnFailure(
          item: entry.item, failedObject: cause.failedObject, reason: cause.reason)
        onFailure[entry.item.object] = onFailure[entry.item.object] ?? waiting
        queue.waitingOnFailure.append(waiting)
        moved = true
        return true
      }
    }
    queue.blocked = blocked
  }

  /// What one survey of the change log found, in line, with the entities whose dependencies
  /// are still to be worked out.
  ///
  /// Handing out needs only the first entity with ready work: the dependencies of the others
  /// (most often the many unsent messages, last in line) are worked out only once it runs dry.
  struct Lineup: Sendable {
    var survey = Survey()
    /// The work not waiting out a backoff, per track, each in line.
    var waiting: [[Work]] = []
    /// The work waiting out a backoff, for the queue.
    var retrying: [SyncQueueSnapshot.Retrying] = []
    /// The next track whose dependencies are to be worked out.
    var nextTrack = 0
  }

  /// Whether the last plan still stands: what it was made from, until when, and whether answers
  /// that settled their requests came since.
  enum PlanStanding: Sendable {
    /// What a plan was made from: the change log's version and the tracker's.
    struct Basis: Sendable, Equatable {
      let log: Int
      let state: Int
    }

    /// No plan was made: the next request makes one.
    case none
    /// A plan that holds while its basis is current, until the earliest backoff it counted on
    /// ends.
    case current(Basis, until: Duration?)
    /// A plan that answers settling their requests have moved past: its ready work still goes
    /// (such an answer only frees work), and a new plan is made once that work is handed out,
    /// to find what the answers freed.
    case settledSince(Basis, until: Duration?)

    /// Whether the plan stands on `basis`, the change log's and the tracker's versions now, at
    /// `now`, with or without ready work left to hand out.
    func stands(on basis: Basis, now: Duration, readyWorkLeft: Bool) -> Bool {
      switch self {
      case .none:
        return false
      case .current(let made, let until):
        return made == basis && (until.map { now < $0 } ?? true)
      case .settledSince(let made, let until):
        return readyWorkLeft
          && Self.current(made, until: until).stands(
            on: basis, now: now, readyWorkLeft: readyWorkLeft)
      }
    }

    /// The standing after an answer settled its request, moving the change log and the
    /// tracker's state from `before` to `after`: a plan current at `before` stands on, with its
    /// ready work; any other is left to be made again.
    func settled(from before: Basis, to after: Basis) -> PlanStanding {
      switch self {
      case .current(let basis, let until) where basis == before,
        .settledSince(let basis, let until) where basis == before:
        return .settledSince(after, until: until)
      case .none, .current, .settledSince:
        return self
      }
    }
  }

  /// Surveys every entity's local changes and puts the work in line, setting aside what waits
  /// out a backoff.
  func lineUp(_ state: State, in context: ModelContext, now: Duration) -> Lineup {
    var lineup = Lineup(waiting: Array(repeating: [], count: tracks.count))
    // Each track lists its work in line, and tracks go in order: the survey's list is in line.
    for track in tracks { track.survey(in: context, into: &lineup.survey) }
    for work in lineup.survey.work {
      if let backoff = state.retry[work.object], backoff.at > now {
        lineup.retrying.append(
          .init(item: work.item, failedAttempts: backoff.attempts, retryIn: backoff.at - now))
      } else {
        lineup.waiting[work.track].append(work)
      }
    }
    return lineup
  }

  /// Works out the dependencies of the next track with waiting work, and what each of its
  /// pieces of work waits for; `nil` once every track is done.
  func evaluateNextTrack(_ lineup: inout Lineup, in context: ModelContext) -> [(Work, Wait)]? {
    while lineup.nextTrack < tracks.count {
      let position = lineup.nextTrack
      lineup.nextTrack += 1
      let works = lineup.waiting[position]
      guard !works.isEmpty else { continue }
      let found = tracks[position].dependencies(of: works, in: context)
      return zip(works, found).map { work, dependencies in
        (work, Self.wait(of: dependencies, for: work, in: lineup.survey))
      }
    }
    return nil
  }

  /// The ready work of the next tracks in line, stopping at the first track that has some;
  /// empty when no track has.
  func nextReady(_ lineup: inout Lineup, in context: ModelContext) -> [Work] {
    while let evaluated = evaluateNextTrack(&lineup, in: context) {
      let ready = evaluated.compactMap { work, wait -> Work? in
        guard case .none = wait else { return nil }
        return work
      }
      if !ready.isEmpty { return ready }
    }
    return []
  }

  /// Why a piece of work cannot go yet, if it cannot.
  enum Wait {
    case none
    case blocked([ObjectReference])
    case failure(ObjectReference, PushFailure)
  }

  /// What `work` waits for among its dependencies: an object whose insert was refused for good
  /// that it needs, else the objects it needs or must follow that still have work.
  static func wait(of dependencies: [SyncDependency], for work: Work, in survey: Survey) -> Wait {
    var blockers: [ObjectReference] = []
    for dependency in dependencies where dependency.object != work.object {
      guard let other = survey.states[dependency.object] else { continue }
      switch dependency.kind {
      case .exists:
        guard other.pendingInsert else { continue }
        if let failure = other.failure { return .failure(dependency.object, failure) }
        blockers.append(dependency.object)
      case .after:
        if other.failure == nil && other.hasWork { blockers.append(dependency.object) }
      }
    }
    guard blockers.count > 1 else { return blockers.isEmpty ? .none : .blocked(blockers) }
    var seen: Set<ObjectReference> = []
    return .blocked(blockers.filter { seen.insert($0).inserted })
  }

  /// The objects that wait, directly or through others, for themselves: the members of
  /// dependency cycles.
  public static func cycleMembers(_ waits: [ObjectReference: [ObjectReference]]) -> Set<
    ObjectReference
  > {
    var onCycle: Set<ObjectReference> = []
    for start in waits.keys {
      var seen: Set<ObjectReference> = []
      var stack = waits[start] ?? []
      while let next = stack.popLast() {
        if next == start {
          onCycle.insert(start)
          break
        }
        guard seen.insert(next).inserted else { continue }
        stack += waits[next] ?? []
      }
    }
    return onCycle
  }
}
