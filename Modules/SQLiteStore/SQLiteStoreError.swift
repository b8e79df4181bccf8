/// Why a SQLite store could not open, load or commit; the file is never changed by a refusal.
public enum SQLiteStoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file could not be opened at all.
  case cannotOpen(path: String, code: Int32, message: String)
  /// The file exists but holds no Courier store: it is empty, not a database, or another
  /// program's database.
  case notACourierStore(path: String, reason: String)
  /// The file is a database that SQLite finds damaged.
  case corrupt(path: String, message: String)
  /// The store was written by a newer Courier, with a schema this one does not know.
  case newerVersion(path: String, found: Int, supported: Int)
  /// The file is marked read-only, so the store could not keep anything in it.
  case readOnly(path: String)
  /// A row could not be read back: its entity is not registered, or its bytes are damaged.
  case unreadableRow(entity: String, id: String, reason: String)
  /// A statement failed while loading or committing.
  case statementFailed(operation: String, code: Int32, message: String)

  /// Says what failed, and where.
  public var description: String {
    switch self {
    case .cannotOpen(let path, let code, let message):
      "cannot open \(path): \(message) (SQLite \(code))"
    case .notACourierStore(let path, let reason):
      "\(path) is not a Courier store: \(reason); it was left as it is"
    case .corrupt(let path, let message):
      "\(path) is damaged: \(message); it was left as it is"
    case .newerVersion(let path, let found, let supported):
      "\(path) was written by a newer Courier (schema \(found); this one reads up to \(supported)); it was left as it is"
    case .readOnly(let path):
      "\(path) is read-only; a store must be able to write its saves"
    case .unreadableRow(let entity, let id, let reason):
      "the stored \(entity) \(id) cannot be read: \(reason)"
    case .statementFailed(let operation, let code, let message):
      "\(operation) failed: \(message) (SQLite \(code))"
    }
  }
}
