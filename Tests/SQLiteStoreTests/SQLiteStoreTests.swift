import CSQLite
import Foundation
import Models
import ModelsTestSupport
import Seams
import TestSupport
import Testing

@testable import SQLiteStore

/// A file that is no store this build may open, how to make it, and the error it must get.
struct BadFile: Sendable, CustomTestStringConvertible {
  let name: String
  let make: @Sendable (String) throws -> Void
  let expected: @Sendable (SQLiteStoreError) -> Bool

  var testDescription: String { name }

  static let all = [
    BadFile(
      name: "a zero-byte file", make: { try Data().write(to: URL(fileURLWithPath: $0)) },
      expected: { if case .notACourierStore(_, "the file is empty") = $0 { true } else { false } }),
    BadFile(
      name: "a text file",
      make: { try Data("just some notes\n".utf8).write(to: URL(fileURLWithPath: $0)) },
      expected: { if case .notACourierStore = $0 { true } else { false } }),
    BadFile(
      name: "another program's database",
      make: { path in
        let connection = try SQLiteConnection.open(path: path, create: true)
        try connection.execute("CREATE TABLE notes (body TEXT)", "make another database")
      },
      expected: { if case .notACourierStore = $0 { true } else { false } }),
    BadFile(
      name: "a truncated store",
      make: { path in
        try filledStore(at: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
      },
      expected: {
        switch $0 {
        case .corrupt, .notACourierStore: true
        default: false
        }
      }),
    BadFile(
      name: "a store from a newer Courier",
      make: { path in
        try filledStore(at: path)
        let connection = try SQLiteConnection.open(path: path, create: false)
        try connection.execute("PRAGMA user_version = 99", "pretend to be newer")
      },
      expected: {
        if case .newerVersion(_, 99, SQLiteSchema.currentVersion) = $0 { true } else { false }
      }),
    BadFile(
      name: "a read-only store",
      make: { path in
        try filledStore(at: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
      },
      expected: { if case .readOnly = $0 { true } else { false } }),
  ]
}

/// A store at `path` with one user in it, closed again.
private func filledStore(at path: String) throws {
  let store = try SQLiteStore(path: path)
  let user = User(id: UUID(1), name: "Ann")
  let stack = try InlineModelStack(store: store)
  try stack.ui.insert(user)
  try stack.ui.save()
  // Fold the write-ahead log into the file, so the file alone holds the store.
  try store.checkpoint()
}

@Suite("SQLiteStore", .tags(.models), .courier(timeBudget: .seconds(10)))
struct SQLiteStoreTests {
  let make = ModelFactory()

  @Test(
    "A save while another connection holds the database is refused, writes nothing, and the next save writes it all"
  )
  func saveRefusedWhileLocked() throws {
    // given: another connection (an app extension, say) holds the write lock
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.sqlite")
    let store = try SQLiteStore(path: path, options: .init(busyTimeout: .milliseconds(20)))
    let stack = try InlineModelStack(store: store)
    let ann = make.user(name: "Ann")
    try stack.ui.insert(ann)
    let holder = try SQLiteConnection.open(path: path, create: false)
    try holder.execute("BEGIN IMMEDIATE", "hold the write lock")
    let refusal = #expect(throws: SaveError.self) { try stack.ui.save() }
    let whileLocked = try store.load()
    try holder.execute("ROLLBACK", "let go of the write lock")

    // when
    try stack.ui.save()

    // then
    #expect(refusal?.description.contains("locked") == true, "\(String(describing: refusal))")
    #expect(whileLocked == StoredState())
    #expect(try store.load().tables == Tables([ann]))
  }

  @Test(
    "A store of more rows than one batch of loading reopens with every row",
    arguments: [1_025, 2_500])
  func reopensEveryRow(count: Int) throws {
    // given
    let directory = try TemporaryDirectory()
    let path = directory.file("many.sqlite")
    let users = (0..<count).map { User(id: UUID(UInt64($0 + 1)), name: "user \($0)") }
    let stack = try InlineModelStack(store: SQLiteStore(path: path))
    for user in users { try stack.ui.insert(user) }
    try stack.ui.save()

    // when
    let loaded = try SQLiteStore(path: path).load()

    // then
    #expect(loaded.tables == Tables(users))
  }

  @Test("A path with no file becomes an empty store in WAL mode at the current schema")
  func createsStore() throws {
    // given
    let directory = try TemporaryDirectory()
    let path = directory.file("new.sqlite")

    // when
    let store = try SQLiteStore(path: path)
    let loaded = try store.load()

    // then
    #expect(loaded == StoredState())
    let connection = try SQLiteConnection.open(path: path, create: false)
    #expect(try connection.integer("PRAGMA user_version", "read") == SQLiteSchema.currentVersion)
    let mode = try connection.prepare("PRAGMA journal_mode", "read")
    #expect(try mode.step() && mode.text(at: 0) == "wal")
  }

  @Test(
    "A bad file is refused with its typed error, and its bytes stay as they were",
    arguments: BadFile.all)
  func refusesBadFile(_ bad: BadFile) throws {
    // given
    let directory = try TemporaryDirectory()
    let path = directory.file("bad.sqlite")
    try bad.make(path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))

    // when
    let error = #expect(throws: SQLiteStoreError.self) { try SQLiteStore(path: path) }

    // then
    #expect(error.map(bad.expected) == true, "got \(String(describing: error))")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }

  @Test(
    "A store from every older schema is brought to the current one, its objects kept",
    arguments: 1..<SQLiteSchema.currentVersion)
  func migratesOlderSchema(from version: Int) throws {
    // given: a file built with the steps up to `version` only, holding one user, a group and a
    // message in it
    let directory = try TemporaryDirectory()
    let path = directory.file("old.sqlite")
    let user = make.user(name: "Ann")
    let group = make.conversation(creator: user)
    let message = make.message(in: group, from: user)
    do {
      let connection = try SQLiteConnection.open(path: path, create: true)
      for step in SQLiteSchema.migrations.prefix(version) {
        for statement in step { try connection.execute(statement, "build an old schema") }
      }
      try connection.execute("PRAGMA user_version = \(version)", "mark the old schema")
      let insert = try connection.prepare(
        "INSERT INTO objects (entity, id, value) VALUES (?, ?, ?)", "write an old row")
      try insert.bind("User", at: 1)
      try insert.bind(user.id.recordBytes, at: 2)
      try insert.bind(try RecordEncoder().encode(user), at: 3)
      try insert.run()
      try insert.bind("Conversation", at: 1)
      try insert.bind(group.id.recordBytes, at: 2)
      try insert.bind(try RecordEncoder().encode(group), at: 3)
      try insert.run()
      try insert.bind("Message", at: 1)
      try insert.bind(message.id.recordBytes, at: 2)
      try insert.bind(try RecordEncoder().encode(message), at: 3)
      try insert.run()
    }

    // when
    let store = try SQLiteStore(path: path)
    var state = try store.load()
    try store.commit(
      StoreSave(
        changes: ChangeSet(origin: .sync), metadata: SyncMetadata(lastNotificationID: UUID(4))))
    state.metadata = try store.load().metadata

    // then
    #expect(state.tables.object(User.self, id: user.id) == user)
    #expect(state.metadata.lastNotificationID == UUID(4))
    #expect(try store.children(Message.self, of: group.id, limit: 10, before: nil) == [message])
    let connection = try SQLiteConnection.open(path: path, create: false)
    #expect(try connection.integer("PRAGMA user_version", "read") == SQLiteSchema.currentVersion)
  }

  @Test("A row of an entity this stack does not know is refused, not dropped")
  func unknownEntity() throws {
    // given
    let directory = try TemporaryDirectory()
    let path = directory.file("store.sqlite")
    _ = try SQLiteStore(path: path)
    let connection = try SQLiteConnection.open(path: path, create: false)
    let insert = try connection.prepare(
      "INSERT INTO objects (entity, id, value) VALUES ('Reaction', ?, ?)", "write a row")
    try insert.bind(UUID(1).recordBytes, at: 1)
    try insert.bind([0], at: 2)
    try insert.run()

    // when
    let error = #expect(throws: SQLiteStoreError.self) { try SQLiteStore(path: path).load() }

    // then
    #expect(
      error
        == .unreadableRow(
          entity: "Reaction", id: "*", reason: "the entity is not in this stack's registry"))
  }
}
