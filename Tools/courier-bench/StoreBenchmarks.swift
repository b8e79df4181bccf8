import CSQLite
import Foundation
import Models
import SQLiteStore
import Seams

/// The SQLite store: committing 10,000 changed objects with 100,000 stored against the same
/// rows written with raw SQLite calls, and opening the 100,000-object store.
func storeBenchmarks() async throws -> [BenchmarkResult] {
  let directory = NSTemporaryDirectory() + "courier-bench-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let path = directory + "/store.sqlite"
  let uuids = UUIDSource.seeded(5)
  let users = (0..<100_000).map { User(id: uuids.next(), name: "User \($0)", accentID: $0 % 8) }
  let recording = RecordingStore(try SQLiteStore(path: path))
  let before = currentMemoryBytes() ?? 0
  let save = try {
    let stack = try InlineModelStack(store: recording, uuids: uuids)
    for user in users { stack.sync.applyRemote(user) }
    try stack.sync.save()
    for user in users.prefix(10_000) {
      try stack.ui.update(User.self, id: user.id) { $0.name += " (renamed)" }
    }
    try stack.ui.save()
    return recording.last
  }()
  guard let save, save.changes[User.self].updated.count == 10_000,
    save.changeLog[User.self].count == 10_000
  else { throw BenchError.mismatch("the captured save is not 10,000 updates with their records") }
  let commitMemory = peakMemoryBytes()

  let raw = try RawCommit(path: path, ids: save.changes[User.self].updated.keys.map { $0 })
  let (commit, rawCommit) = try Samples.measureAlternating(runs: 9) {
    try recording.store.commit(save)
  } against: {
    try raw.run()
  }
  let ratio = commit.median.seconds / rawCommit.median.seconds
  var commitResult = BenchmarkResult(
    name: "sqlite commit: 10,000 changed objects and their records, 100,000 stored",
    subject: commit, baseline: rawCommit,
    baselineName: "the same rows written with raw sqlite3 calls in one transaction",
    ratio: ratio, ratioMeaning: "time relative to raw SQLite:", goal: "≤ 1.5× raw",
    met: ratio <= 1.5)
  commitResult.notes.append(
    String(
      format: "peak RSS while preparing and committing: %.0f MiB (%.0f MiB before)",
      Double(commitMemory) / 1_048_576, Double(before) / 1_048_576))

  try recording.store.checkpoint()
  let open = try Samples.measure(runs: 5) {
    let state = try SQLiteStore(path: path).load()
    guard state.tables.count(of: User.self) == 100_000,
      state.changeLog[User.self].count == 10_000
    else { throw BenchError.mismatch("the reopened store does not hold what was saved") }
  }
  var openResult = BenchmarkResult(
    name: "sqlite open: 100,000 objects and 10,000 pending changes, loaded into memory",
    subject: open, baseline: nil, baselineName: nil, ratio: nil, ratioMeaning: "",
    goal: "under 200 ms", met: open.median < .milliseconds(200))
  openResult.notes.append(
    String(
      format: "peak RSS of the process after opening: %.0f MiB",
      Double(peakMemoryBytes()) / 1_048_576))
  let openOnly = try Samples.measure(runs: 5) { _ = try SQLiteStore(path: path) }
  openResult.notes.append(
    "opening the file alone, without loading: \(openOnly.median.readable) (median of 5)")
  return [commitResult, openResult]
}

/// The rows some ids have in a store (objects and pending records), as they are, written again
/// with raw SQLite calls in one transaction per run.
private final class RawCommit {
  private let handle: OpaquePointer
  private var statements: [String: OpaquePointer] = [:]
  private var rows: [(table: String, id: [UInt8], value: [UInt8])] = []

  /// Opens the store at `path` and reads the rows of `ids`.
  init(path: String, ids: [UUID]) throws {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle
    else { throw BenchError.mismatch("cannot open \(path)") }
    self.handle = handle
    sqlite3_exec(handle, "PRAGMA synchronous = NORMAL", nil, nil, nil)
    let wanted = Set(ids.map { withUnsafeBytes(of: $0.uuid) { Array($0) } })
    for table in ["objects", "pending"] {
      var read: OpaquePointer?
      let column = table == "objects" ? "value" : "record"
      sqlite3_prepare_v2(
        handle, "SELECT id, \(column) FROM \(table) WHERE entity = 'User'", -1, &read, nil)
      while sqlite3_step(read) == SQLITE_ROW {
        let id = Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(read, 0), count: 16))
        guard wanted.contains(id) else { continue }
        let count = Int(sqlite3_column_bytes(read, 1))
        rows.append(
          (
            table, id,
            Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(read, 1), count: count))
          ))
      }
      sqlite3_finalize(read)
      var statement: OpaquePointer?
      sqlite3_prepare_v2(
        handle, "INSERT OR REPLACE INTO \(table) (entity, id, \(column)) VALUES ('User', ?, ?)",
        -1, &statement, nil)
      statements[table] = statement
    }
    guard rows.count == ids.count * 2 else {
      throw BenchError.mismatch("found \(rows.count) raw rows")
    }
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// Writes the rows again in one transaction.
  func run() throws {
    sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil)
    for row in rows {
      guard let statement = statements[row.table] else { continue }
      row.id.withUnsafeBytes { _ = sqlite3_bind_blob(statement, 1, $0.baseAddress, 16, nil) }
      row.value.withUnsafeBytes {
        _ = sqlite3_bind_blob(statement, 2, $0.baseAddress, Int32($0.count), nil)
      }
      guard sqlite3_step(statement) == SQLITE_DONE else {
        throw BenchError.mismatch("a raw write failed: \(String(cString: sqlite3_errmsg(handle)))")
      }
      sqlite3_reset(statement)
    }
    sqlite3_exec(handle, "COMMIT", nil, nil, nil)
  }
}

/// A store that keeps the last save it committed, to replay it.
private final class RecordingStore: WrappingStore, @unchecked Sendable {
  let store: SQLiteStore
  private(set) var last: StoreSave?

  init(_ store: SQLiteStore) {
    self.store = store
  }

  var wrapped: any ModelStore { store }

  func commit(_ save: StoreSave) throws {
    try store.commit(save)
    last = save
  }
}
