import Foundation
import Models

extension UpstreamObjectSync {
  /// The work that can go now, in line, and the queue as it stands.
  struct Plan: Sendable {
    var ready: [Work] = []
    var queue = SyncQueueSnapshot()
  }

  /// Surveys every entity's local changes, then sorts each piece of work into ready, blocked,
  /// waiting on a failure, or retrying; what only the queue shows (requests in flight, cycles)
  /// is worked out only `forQueue`.
  func makePlan(_ state: State, in context: ModelContext, now: Duration, forQueue: Bool) -> Plan {
    var survey = Survey()
    for track in tracks { track.survey(in: context, into: &survey) }
    var plan = Plan()
    if forQueue {
      plan.queue.inFlight = tracks.flatMap(\.inFlightItems).sorted()
      plan.queue.failed = survey.failed.sorted { $0.object < $1.object }
    }
    var waits: [ObjectReference: [ObjectReference]] = [:]
    var waiting: [Work] = []
    for work in survey.work.sorted(by: Self.inLine) {
      if let backoff = state.retry[work.object], backoff.at > now {
        plan.queue.retrying.append(
          .init(item: work.item, failedAttempts: backoff.attempts, retryIn: backoff.at - now))
      } else {
        waiting.append(work)
      }
    }
    var dependencies: [[SyncDependency]] = Array(repeating: [], count: waiting.count)
    for (position, track) in tracks.enumerated() {
      let indexes = waiting.indices.filter { waiting[$0].track == position }
      guard !indexes.isEmpty else { continue }
      let found = track.dependencies(of: indexes.map { waiting[$0] }, in: context)
      for (index, list) in zip(indexes, found) { dependencies[index] = list }
    }
    for (work, dependencies) in zip(waiting, dependencies) {
      switch Self.wait(of: dependencies, for: work, in: survey) {
      case .none:
        plan.ready.append(work)
        plan.queue.pending.append(work.item)
      case .blocked(let objects):
        waits[work.object] = objects
        plan.queue.blocked.append(.init(item: work.item, waitingFor: objects, isCycle: false))
      case .failure(let object, let failure):
        plan.queue.waitingOnFailure.append(
          .init(item: work.item, failedObject: object, reason: failure.reason))
      }
    }
    guard forQueue else { return plan }
    let cycles = Self.cycleMembers(waits)
    plan.queue.blocked = plan.queue.blocked.map {
      .init(item: $0.item, waitingFor: $0.waitingFor, isCycle: cycles.contains($0.item.object))
    }
    return plan
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
    var seen: Set<ObjectReference> = []
    let distinct = blockers.filter { seen.insert($0).inserted }
    return distinct.isEmpty ? .none : .blocked(distinct)
  }

  /// Whether `lhs` goes before `rhs`: by strategy, then the strategy's order, then id.
  static func inLine(_ lhs: Work, _ rhs: Work) -> Bool {
    if lhs.track != rhs.track { return lhs.track < rhs.track }
    if lhs.order != rhs.order { return lhs.order < rhs.order }
    return lhs.object.id < rhs.object.id
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
