import CSQLite
import Foundation

/// One connection to a SQLite file, with the few calls the store makes; used under the store's
/// lock only, so one thread at a time.
final class SQLiteConnection {
  let handle: OpaquePointer
  let path: String

  private init(handle: OpaquePointer, path: String) {
    self.handle = handle
    self.path = path
  }

  deinit {
    sqlite3_close_v2(handle)
  }

  /// Opens `path`, creating the file only when `create` is set.
  static func open(path: String, create: Bool) throws(SQLiteStoreError) -> SQLiteConnection {
    var handle: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    guard code == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let handle { sqlite3_close_v2(handle) }
      throw .cannotOpen(path: path, code: code, message: message)
    }
    sqlite3_extended_result_codes(handle, 1)
    return SQLiteConnection(handle: handle, path: path)
  }

  /// Whether SQLite opened the file for reading only.
  var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

  /// The message of the connection's last error.
  var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

  /// Runs `sql`, which returns no rows.
  func execute(_ sql: String, _ operation: String) throws(SQLiteStoreError) {
    let code = sqlite3_exec(handle, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw failure(operation, code) }
  }

  /// A prepared statement for `sql`.
  func prepare(_ sql: String, _ operation: String) throws(SQLiteStoreError) -> SQLiteStatement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v3(
      handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard code == SQLITE_OK, let statement else { throw failure(operation, code) }
    return SQLiteStatement(statement, connection: self, operation: operation)
  }

  /// The integer the single-row, single-column query `sql` gives.
  func integer(_ sql: String, _ operation: String) throws(SQLiteStoreError) -> Int {
    let statement = try prepare(sql, operation)
    guard try statement.step() else { return 0 }
    return statement.integer(at: 0)
  }

  /// Runs `body` in one immediate transaction: all of it is written, or none of it.
  func transaction<Result>(
    _ operation: String, _ body: () throws(SQLiteStoreError) -> Result
  ) throws(SQLiteStoreError) -> Result {
    try execute("BEGIN IMMEDIATE", operation)
    do {
      let result = try body()
      try execute("COMMIT", operation)
      return result
    } catch {
      _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
      throw error
    }
  }

  /// The typed error for `code`, classified.
  func failure(_ operation: String, _ code: Int32) -> SQLiteStoreError {
    let primary = code & 0xFF
    if primary == SQLITE_NOTADB {
      return .notACourierStore(path: path, reason: "it is not a SQLite database")
    }
    if primary == SQLITE_CORRUPT { return .corrupt(path: path, message: lastMessage) }
    if primary == SQLITE_READONLY { return .readOnly(path: path) }
    return .statementFailed(operation: operation, code: code, message: lastMessage)
  }
}

/// One prepared statement, reset after each use.
final class SQLiteStatement {
  private let statement: OpaquePointer
  private let connection: SQLiteConnection
  private let operation: String

  init(_ statement: OpaquePointer, connection: SQLiteConnection, operation: String) {
    self.statement = statement
    self.connection = connection
    self.operation = operation
  }

  deinit {
    sqlite3_finalize(statement)
  }

  /// Binds `text` to the parameter at `index`, counted from 1.
  func bind(_ text: String, at index: Int32) throws(SQLiteStoreError) {
    try check(sqlite3_bind_text(statement, index, text, -1, transientDestructor))
  }

  /// Binds `integer` to the parameter at `index`, counted from 1.
  func bind(_ integer: Int, at index: Int32) throws(SQLiteStoreError) {
    try check(sqlite3_bind_int64(statement, index, Int64(integer)))
  }

  /// Binds `bytes` to the parameter at `index`, counted from 1.
  func bind(_ bytes: [UInt8], at index: Int32) throws(SQLiteStoreError) {
    let code = bytes.withUnsafeBytes { raw in
      sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), transientDestructor)
    }
    try check(code)
  }

  /// Runs a statement that returns no rows with `entity` (a C string), `id` and `value` bound to
  /// its three parameters, then resets it; the values are bound without copying, only while it
  /// runs.
  ///
  /// A save writes each changed row this way: copying every row into SQLite first cost as much
  /// as writing it.
  func run(_ entity: [CChar], _ id: UUID, _ value: [UInt8]) throws(SQLiteStoreError) {
    let code = entity.withUnsafeBufferPointer { entity in
      withUnsafeBytes(of: id.uuid) { id in
        value.withUnsafeBytes { value in
          var code = sqlite3_bind_text(statement, 1, entity.baseAddress, -1, nil)
          if code == SQLITE_OK { code = sqlite3_bind_blob(statement, 2, id.baseAddress, 16, nil) }
          if code == SQLITE_OK {
            code = sqlite3_bind_blob(
              statement, 3, value.baseAddress, Int32(value.count), nil)
          }
          if code == SQLITE_OK { code = sqlite3_step(statement) }
          // Bound without a copy: the bindings go before the buffers do.
          reset()
          return code
        }
      }
    }
    guard code == SQLITE_DONE || code == SQLITE_ROW else {
      throw connection.failure(operation, code)
    }
  }

  /// Runs the statement one step; returns whether a row is ready to read.
  func step() throws(SQLiteStoreError) -> Bool {
    let code = sqlite3_step(statement)
    if code == SQLITE_ROW { return true }
    if code == SQLITE_DONE { return false }
    throw connection.failure(operation, code)
  }

  /// Runs a statement that returns no rows, then resets it for the next use.
  func run() throws(SQLiteStoreError) {
    defer { reset() }
    _ = try step()
  }

  /// Makes the statement ready for new bindings.
  func reset() {
    sqlite3_reset(statement)
    sqlite3_clear_bindings(statement)
  }

  /// The text of column `index` of the current row.
  func text(at index: Int32) -> String {
    guard let pointer = sqlite3_column_text(statement, index) else { return "" }
    return String(cString: pointer)
  }

  /// The bytes of column `index` of the current row.
  func bytes(at index: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(statement, index))
    guard count > 0, let pointer = sqlite3_column_blob(statement, index) else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }

  /// Calls `body` with the bytes of column `index` of the current row, without copying them;
  /// they are valid only during the call.
  func withBytes<Result, Failure: Error>(
    at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let count = Int(sqlite3_column_bytes(statement, index))
    guard count > 0, let pointer = sqlite3_column_blob(statement, index) else {
      return try body(UnsafeBufferPointer(start: nil, count: 0))
    }
    return try body(
      UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count))
  }

  /// The integer of column `index` of the current row.
  func integer(at index: Int32) -> Int {
    Int(sqlite3_column_int64(statement, index))
  }

  private func check(_ code: Int32) throws(SQLiteStoreError) {
    guard code == SQLITE_OK else { throw connection.failure(operation, code) }
  }
}

/// SQLite's `SQLITE_TRANSIENT`: it copies a bound value before the call returns.
private let transientDestructor = unsafeBitCast(
  OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
