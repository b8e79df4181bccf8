/// Where the objects of a stack are kept between saves; the seam a durable store plugs into.
///
/// A store is only ever called by the stack's coordinator, one call at a time, in commit order.
public protocol ModelStore: Sendable {
  /// Everything the store holds, read once when a stack opens.
  func load() throws -> Tables

  /// Makes one saved change set durable, applying inserts, the changed keys of updates, and
  /// deletions; a thrown error fails the save that produced it.
  func commit(_ changes: ChangeSet) throws
}
