import Foundation

/// Where a caller started listening to what the server is heard to hold for one object: pass
/// it back to ``ModelContext/endServerTrail(of:id:from:)`` to read what was heard since.
package struct ServerTrailMark: Sendable, Hashable {
  /// How many values had been heard for the object, since its trail began, when the mark was
  /// taken.
  let position: Int
}

/// News a context is applying: a notification or a read, at the server's version of the change
/// it reports (or the state it read), or without one when the backend did not say it.
package enum HeardNews: Sendable, Hashable {
  case version(Int)
  case unversioned

  /// News at `version`, or unversioned news when it is `nil`.
  package init(_ version: Int?) {
    self = version.map(Self.version) ?? .unversioned
  }

  /// The version the news were heard at, if the backend said it.
  package var version: Int? {
    if case .version(let version) = self { version } else { nil }
  }
}

/// A value the server was heard to hold for an object, with the server's version of the change
/// that made it, when the news said it.
package struct HeardValue<Object: ModelObject>: Sendable {
  /// The object as the server held it.
  package let value: Object
  /// The server's version of the news that told it, as a whole number.
  package let version: Int?

  /// Creates a heard value: `value` as news at `version` told it.
  package init(value: Object, version: Int?) {
    self.value = value
    self.version = version
  }
}

/// The values the server was heard to hold for objects of one entity, in the order heard, kept
/// only while some caller listens.
///
/// The last synchronised value alone says where the server ended, not how it got there: a
/// member added and removed again leaves it as it was. A request in flight needs the way, to
/// tell whether the server changed the keys it carries.
struct ServerTrails<Object: ModelObject>: EntitySlot {
  /// One object's trail.
  struct Trail: Sendable {
    /// The position of the first value kept.
    var start = 0
    var values: [HeardValue<Object>] = []
    /// The marks of the callers listening, one entry per caller.
    var marks: [Int] = []

    /// The position the next value heard takes.
    var end: Int { start + values.count }
  }

  private var trails: [UUID: Trail] = [:]

  /// Whether no caller listens to any object of the entity.
  var isEmpty: Bool { trails.isEmpty }

  /// Starts a listener of `id`; returns its mark.
  mutating func start(_ id: UUID) -> ServerTrailMark {
    var trail = trails[id] ?? Trail()
    trail.marks.append(trail.end)
    trails[id] = trail
    return ServerTrailMark(position: trail.end)
  }

  /// Records that the server was heard to hold `value` for `id` at `version`, if some caller
  /// listens.
  mutating func hear(_ value: Object, of id: UUID, version: Int?) {
    trails[id]?.values.append(HeardValue(value: value, version: version))
  }

  /// What was heard for `id` since `mark`, oldest first.
  func heard(_ id: UUID, from mark: ServerTrailMark) -> [HeardValue<Object>] {
    guard let trail = trails[id] else { return [] }
    return Array(trail.values[max(mark.position - trail.start, 0)...])
  }

  /// Ends the listener of `id` that started at `mark`; returns whether it was listening.
  ///
  /// The values no remaining listener needs are dropped.
  mutating func end(_ id: UUID, from mark: ServerTrailMark) -> Bool {
    guard var trail = trails[id], let index = trail.marks.firstIndex(of: mark.position) else {
      return false
    }
    trail.marks.remove(at: index)
    guard let earliest = trail.marks.min() else {
      trails[id] = nil
      return true
    }
    trail.values.removeFirst(earliest - trail.start)
    trail.start = earliest
    trails[id] = trail
    return true
  }
}
