import CSQLite
import Foundation
import Models
import Seams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A durable store in one SQLite file: the objects, the change log of what is
/// still to be pushed, and the sync layer's metadata, each save in one transaction.
///
/// ```swift
/// let store = try SQLiteStore(path: "/path/to/courier.sqlite")
/// let stack = try ModelStack(store: store)
/// ```
///
/// A crash leaves the file at the save before or the save after, never between. The file is
/// in WAL mode with `synchronous = NORMAL`: a save survives the app being killed; after a power
/// cut the last saves may be rolled back, still whole. A file that is not a Courier store, is
/// damaged, comes from a newer Courier or is marked read-only is refused with a typed error and
/// never changed.
public final class SQLiteStore: ModelStore, Sendable {
  /// How the store writes.
  public struct Options: Sendable, Hashable {
    /// SQLite's `synchronous` setting: `NORMAL` (the default) survives the app being killed;
    /// `FULL` also survives a power cut, at a cost per save.
    public var synchronous: Synchronous
    /// How long a save waits for another connection's write lock before failing.
    public var busyTimeout: Duration

    /// SQLite's durability settings.
    public enum Synchronous: String, Sendable, Hashable {
      /// Durable against the app being killed.
      case normal = "NORMAL"
      /// Durable against a power cut too.
      case full = "FULL"
    }

    /// Creates options; `NORMAL` and five seconds by default.
    public init(synchronous: Synchronous = .normal, busyTimeout: Duration = .seconds(5)) {
      self.synchronous = synchronous
      self.busyTimeout = busyTimeout
    }
  }

  /// The file.
  public let path: String
  /// The entities the store reads and writes.
  package let entities: EntityRegistry
  private let connection: Locked<ConnectionBox>

  /// Opens the store at `path`, creating it if there is no file there.
  ///
  /// - Throws: ``SQLiteStoreError`` when the file is not a Courier store, is damaged, comes
  ///   from a newer Courier, is read-only, or cannot be opened; the file is left as it was.
  public convenience init(path: String, options: Options = Options()) throws(SQLiteStoreError) {
    try self.init(path: path, entities: .standard, options: options)
  }

  /// Opens the store at `path` for `entities`, creating it if there is no file there.
  package init(
    path: String, entities: EntityRegistry, options: Options = Options()
  ) throws(SQLiteStoreError) {
    self.path = path
    self.entities = entities
    let exists = FileManager.default.fileExists(atPath: path)
    if exists { try Self.refuseReadOnly(path) }
    let connection = try SQLiteConnection.open(path: path, create: !exists)
    if exists {
      if connection.isReadOnly { throw .readOnly(path: path) }
      try Self.checkIsCourierStore(connection)
    }
    try connection.execute("PRAGMA journal_mode = WAL", "switch to WAL")
    try connection.execute(
      "PRAGMA synchronous = \(options.synchronous.rawValue)", "set synchronous")
    let milliseconds =
      options.busyTimeout.components.seconds * 1_000
      + options.busyTimeout.components.attoseconds / 1_000_000_000_000_000
    sqlite3_busy_timeout(connection.handle, Int32(clamping: milliseconds))
    let version = try connection.integer("PRAGMA user_version", "read the schema version")
    try SQLiteSchema.migrate(connection, from: version) { reached throws(SQLiteStoreError) in
      guard reached == SQLiteSchema.placesVersion else { return }
      try SQLiteReader(connection: connection, entities: entities).placeEveryObject()
    }
    self.connection = Locked(ConnectionBox(connection))
  }

  /// Refuses a file that no one may write: a store must be able to keep its saves.
  private static func refuseReadOnly(_ path: String) throws(SQLiteStoreError) {
    var info = stat()
    guard stat(path, &info) == 0 else { return }
    if info.st_mode & 0o222 == 0 { throw .readOnly(path: path) }
  }

  /// Reads, without writing, whether `connection`'s file is a Courier store this build can
  /// open.
  private static func checkIsCourierStore(_ connection: SQLiteConnection) throws(SQLiteStoreError) {
    let path = connection.path
    let tables = try connection.integer(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'courier_store'",
      "look for the store's marker")
    guard tables == 1 else {
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      throw .notACourierStore(
        path: path,
        reason: size == 0 ? "the file is empty" : "the database has no Courier tables")
    }
    let marker = try connection.prepare(
      "SELECT value FROM courier_store WHERE key = 'format'", "read the store's marker")
    guard try marker.step(), marker.text(at: 0) == SQLiteSchema.formatMarker else {
      throw .notACourierStore(path: path, reason: "its marker is not Courier's")
    }
    let version = try connection.integer("PRAGMA user_version", "read the schema version")
    guard version <= SQLiteSchema.currentVersion else {
      throw .newerVersion(path: path, found: version, supported: SQLiteSchema.currentVersion)
    }
  }

  // MARK: - Loading

  /// Everything the file holds.
  ///
  /// - Throws: ``SQLiteStoreError`` for a row of an entity the registry does not know, or one
  ///   whose bytes cannot be read.
  package func load() throws -> StoredState {
    try connection.withLock { box throws(SQLiteStoreError) in
      try SQLiteLoader(connection: box.connection, entities: entities).load()
    }
  }

  /// Everything the file holds but the objects of paged entities, which are not read at all: a
  /// stack opens on a million messages as fast as on none.
  ///
  /// - Throws: ``SQLiteStoreError`` as ``load()`` does.
  package func loadForOpening() throws -> StoredState {
    try connection.withLock { box throws(SQLiteStoreError) in
      try SQLiteLoader(connection: box.connection, entities: entities).load(pagedObjects: false)
    }
  }

  /// Every object of `type` the file holds, read without the other entities.
  ///
  /// - Throws: ``SQLiteStoreError`` for a row whose bytes cannot be read.
  package func objects<Object: ModelObject>(_ type: Object.Type) throws -> [UUID: Object] {
    try connection.withLock { box throws(SQLiteStoreError) in
      try SQLiteLoader(connection: box.connection, entities: entities).objects(type)
    }
  }

  /// The object of `type` with `id`, read from the file alone.
  ///
  /// - Throws: ``SQLiteStoreError`` for a row whose bytes cannot be read.
  package func object<Object: ModelObject>(_ type: Object.Type, id: UUID) throws -> Object? {
    try connection.withLock { box throws(SQLiteStoreError) in
      try SQLiteReader(connection: box.connection, entities: entities).object(type, id: id)
    }
  }

  /// The last `limit` objects of `type` placed under `parent` (the latest messages of a
  /// conversation), of those placed before `before` when it is given, in their order; read from
  /// the index of places, without reading the parent's other objects.
  ///
  /// - Throws: ``SQLiteStoreError`` for a row whose bytes cannot be read.
  package func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object? = nil
  ) throws -> [Object] {
    try connection.withLock { box throws(SQLiteStoreError) in
      try SQLiteReader(connection: box.connection, entities: entities).children(
        type, of: parent, limit: limit, before: before)
    }
  }

  /// Folds the write-ahead log into the database file, so that the file alone holds every
  /// save; SQLite does this by itself from time to time, and a copy of the file wants it.
  ///
  /// - Throws: ``SQLiteStoreError`` when SQLite cannot finish the checkpoint.
  public func checkpoint() throws {
    try connection.withLock { box throws(SQLiteStoreError) in
      try box.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)", "checkpoint the log")
    }
  }

  // MARK: - Committing

  /// Writes `save` in one transaction.
  ///
  /// - Throws: ``SQLiteStoreError`` when a statement fails; nothing of the save is written
  ///   then.
  package func commit(_ save: StoreSave) throws {
    let beforeCommitting = self.beforeCommitting.withLock { $0 }
    try connection.withLock { box throws(SQLiteStoreError) in
      try box.connection.transaction("commit a save") { () throws(SQLiteStoreError) in
        try SQLiteWriter(connection: box.connection, entities: entities).write(save)
        beforeCommitting?()
      }
    }
  }

  /// Called inside each save's transaction, after its rows are written and before it commits:
  /// for tests that kill the process in the middle of a commit.
  let beforeCommitting = Locked<(@Sendable () -> Void)?>(nil)
}

/// A connection handed to the store's lock, which is the only way to it.
///
/// Unchecked `Sendable`: the connection is used with the lock held, one thread at a time.
final class ConnectionBox: @unchecked Sendable {
  let connection: SQLiteConnection

  init(_ connection: SQLiteConnection) {
    self.connection = connection
  }
}
