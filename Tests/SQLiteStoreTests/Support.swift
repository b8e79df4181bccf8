import Foundation
import Models
import SQLiteStore

/// A fresh directory for a test's files, removed when the test is done with it.
final class TemporaryDirectory: Sendable {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "courier-store-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }

  /// A path inside the directory.
  func file(_ name: String) -> String { path + "/" + name }
}

/// The two stores, which must behave the same.
enum StoreKind: String, CaseIterable, Sendable {
  case inMemory
  case sqlite

  /// A fresh store of this kind, and a way to open it again as a restarted app would.
  func make(in directory: TemporaryDirectory) throws -> (
    store: any ModelStore, reopen: @Sendable () throws -> any ModelStore
  ) {
    switch self {
    case .inMemory:
      let store = InMemoryStore()
      return (store, { store })
    case .sqlite:
      let path = directory.file("store.sqlite")
      return (try SQLiteStore(path: path), { try SQLiteStore(path: path) })
    }
  }
}
