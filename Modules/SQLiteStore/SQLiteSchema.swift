/// The tables of a Courier store, version by version: each step brings a file from the version
/// before it to its own, and `PRAGMA user_version` says which a file has reached.
enum SQLiteSchema {
  /// The marker that tells a Courier store from any other SQLite file.
  static let formatMarker = "courier-model-store"

  /// One step per version, in order: step `n` brings a file to version `n + 1`.
  static let migrations: [[String]] = [
    // 1: the objects, and a record per object with something still to push.
    [
      "CREATE TABLE courier_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
      "INSERT INTO courier_store (key, value) VALUES ('format', '\(formatMarker)')",
      """
      CREATE TABLE objects (
        entity TEXT NOT NULL, id BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (entity, id)
      ) WITHOUT ROWID
      """,
      """
      CREATE TABLE pending (
        entity TEXT NOT NULL, id BLOB NOT NULL, record BLOB NOT NULL, PRIMARY KEY (entity, id)
      ) WITHOUT ROWID
      """,
    ],
    // 2: the sync layer's metadata (the last notification applied).
    ["CREATE TABLE metadata (key TEXT PRIMARY KEY, value BLOB NOT NULL)"],
    // 3: where an object stands among its parent's (a message in its conversation), indexed so
    // that a page of them is read without reading the others; rows written before are placed
    // by the store's backfill.
    [
      "ALTER TABLE objects ADD COLUMN parent BLOB",
      "ALTER TABLE objects ADD COLUMN rank BLOB",
      "CREATE INDEX objects_by_place ON objects (entity, parent, rank) WHERE parent IS NOT NULL",
    ],
  ]

  /// The version whose step adds the places of objects, which rows written before it get from
  /// the store's backfill.
  static let placesVersion = 3

  /// The version this build writes and reads.
  static var currentVersion: Int { migrations.count }

  /// Brings `connection`'s file from `version` to the current one, a step at a time, in one
  /// transaction.
  ///
  /// A crash leaves the file at `version`. After the SQL of each step, `backfill` is called with
  /// the version the step reached, to fill in what the SQL cannot compute.
  static func migrate(
    _ connection: SQLiteConnection, from version: Int,
    backfill: (_ reached: Int) throws(SQLiteStoreError) -> Void
  ) throws(SQLiteStoreError) {
    guard version < currentVersion else { return }
    try connection.transaction("migrate the store to schema \(currentVersion)") {
      () throws(SQLiteStoreError) in
      for (index, step) in migrations.enumerated().dropFirst(version) {
        for statement in step { try connection.execute(statement, "migrate the store") }
        try backfill(index + 1)
      }
      try connection.execute("PRAGMA user_version = \(currentVersion)", "set the schema version")
    }
  }
}
