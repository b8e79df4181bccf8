import Foundation

/// Where a stack's state is kept between saves: the seam a durable store plugs into.
///
/// A store is only ever called by the stack's coordinator, one call at a time, in commit order.
/// A save is all or nothing: a store that cannot write all of it writes none of it, and throws.
package protocol ModelStore: Sendable {
  /// Everything the store holds: for a whole entity's reads, tests and tools.
  func load() throws -> StoredState

  /// What a stack opens with: everything the store holds but the objects of paged entities
  /// (``EntitySchema/parent``), which contexts read when they need them. By default, what
  /// ``load()`` returns without them; a store that can, leaves them unread.
  func loadForOpening() throws -> StoredState

  /// Makes one save durable: the objects it changed, the change-log records it rewrote, and the
  /// sync metadata when it carries some; a thrown error fails the save.
  func commit(_ save: StoreSave) throws

  /// Every object of `type` the store holds, by id; by default, what ``load()`` returns of it.
  ///
  /// A store that wraps another forwards this read and the ones below, or they go through the
  /// other store's ``load()``.
  func objects<Object: ModelObject>(_ type: Object.Type) throws -> [UUID: Object]

  /// The object of `type` with `id` as the store holds it, or `nil`; by default, looked up in
  /// what ``load()`` returns.
  func object<Object: ModelObject>(_ type: Object.Type, id: UUID) throws -> Object?

  /// The last `limit` objects of `type` whose place is under `parent` (``EntitySchema/place``),
  /// of those placed before `before` when it is given, in the order of their places: the latest
  /// messages of a conversation, a page before the one shown. By default, worked out from what
  /// ``load()`` returns; a store with an index of places reads only the page.
  func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object?
  ) throws -> [Object]
}

/// Everything a store holds: the objects, the change log of what is still to be pushed, and
/// the sync layer's metadata.
package struct StoredState: Sendable, Equatable {
  /// The objects.
  package var tables: Tables
  /// A record per object with something pending.
  package var changeLog: ChangeLogRecords
  /// The sync layer's metadata.
  package var metadata: SyncMetadata

  /// Creates a state; empty by default.
  package init(
    tables: Tables = Tables(), changeLog: ChangeLogRecords = ChangeLogRecords(),
    metadata: SyncMetadata = SyncMetadata()
  ) {
    self.tables = tables
    self.changeLog = changeLog
    self.metadata = metadata
  }

  /// Applies `save` as a store must: its objects, its records (an empty one removes), and its
  /// metadata if it has any.
  package mutating func apply(_ save: StoreSave) {
    tables.apply(save.changes)
    changeLog.overlay(with: save.changeLog)
    if let metadata = save.metadata { self.metadata = metadata }
  }
}

/// One save, as a store writes it in one transaction.
package struct StoreSave: Sendable, Equatable {
  /// The objects inserted, updated and deleted.
  package let changes: ChangeSet
  /// The change-log records to write; an empty record removes the object's.
  package let changeLog: ChangeLogRecords
  /// The sync metadata to keep, when the save changed it.
  package let metadata: SyncMetadata?

  /// Creates a save.
  package init(
    changes: ChangeSet, changeLog: ChangeLogRecords = ChangeLogRecords(),
    metadata: SyncMetadata? = nil
  ) {
    self.changes = changes
    self.changeLog = changeLog
    self.metadata = metadata
  }

  /// Whether the save writes nothing at all.
  package var isEmpty: Bool { changes.isEmpty && changeLog.isEmpty && metadata == nil }
}
